package loadgen

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// text is a JSON string of an answer as it came, between its quotes,
// read in place: an answer's text is tested for being there and its
// words counted, never kept, so no string is made of it (one a request
// was most of what a request allocated). It is valid while the bytes it
// was read from are: a chunk is done with before its worker reads again.
type text struct {
	raw []byte
	// esc says raw holds an escape or a byte that is not UTF-8: read
	// through its escapes (words) or decoded whole (String).
	esc bool
}

// empty says whether the string is "": every escape stands for a
// character, and a byte that is not UTF-8 for U+FFFD.
func (t text) empty() bool { return len(t.raw) == 0 }

// String is the string as encoding/json decodes it: for tests and
// errors, never on a request's way.
func (t text) String() string {
	if !t.esc {
		return string(t.raw)
	}
	var s string
	quoted := append(append([]byte{'"'}, t.raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		return string(t.raw) // rawString let it through, so this is never reached
	}
	return s
}

// words counts words across texts as countWords counts them in the
// texts' decoded strings joined: a word may go on from one text into
// the next.
type words struct {
	n  int
	in bool
}

func (w *words) rune(r rune) {
	space := unicode.IsSpace(r)
	if !space && !w.in {
		w.n++
	}
	w.in = !space
}

// add counts t's characters. Only whether each is a space matters, so an
// escaped UTF-16 surrogate, paired or not, is one character that is not
// (encoding/json makes a pair one character and a lone one U+FFFD: none
// a space either), and a byte that is not UTF-8 is U+FFFD, as decoded.
// rawString checked every escape, so each is whole here.
func (w *words) add(t text) {
	for i := 0; i < len(t.raw); {
		c := t.raw[i]
		switch {
		case c == '\\' && t.esc:
			r, size := unescape(t.raw[i+1:])
			w.rune(r)
			i += 1 + size
		case c < utf8.RuneSelf: // unicode.IsSpace's ASCII spaces, without its call: every character of every answer
			space := c == ' ' || '\t' <= c && c <= '\r'
			if !space && !w.in {
				w.n++
			}
			w.in = !space
			i++
		default:
			r, size := utf8.DecodeRune(t.raw[i:])
			w.rune(r)
			i += size
		}
	}
}

// unescape is the character of the escape at the start of rest (after
// its backslash) and the escape's length; rest is one validEscape passed.
func unescape(rest []byte) (rune, int) {
	switch rest[0] {
	case 'b':
		return '\b', 1
	case 'f':
		return '\f', 1
	case 'n':
		return '\n', 1
	case 'r':
		return '\r', 1
	case 't':
		return '\t', 1
	case 'u':
		var r rune
		for _, h := range rest[1:5] {
			switch {
			case h <= '9':
				h -= '0'
			case h >= 'a':
				h -= 'a' - 10
			default:
				h -= 'A' - 10
			}
			r = r<<4 | rune(h)
		}
		return r, 5
	}
	return rune(rest[0]), 1 // " \ /
}
