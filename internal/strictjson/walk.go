package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind is what a Token is.
type Kind int

// The kinds of token: an object's or array's start and end, an object's
// key, and the scalar values.
const (
	ObjectStart Kind = iota
	ObjectEnd
	ArrayStart
	ArrayEnd
	Key
	String
	Number
	Literal // true, false or null
)

// Token is one token of a Walker's input.
type Token struct {
	Kind Kind
	// Text is a key's or a string's value, its escapes resolved, or a
	// number's or a literal's text.
	Text string
	// Start and End are the token's bytes in the input.
	Start, End int
}

// MaxDepth bounds the nesting a Walker reads, as encoding/json bounds it.
const MaxDepth = 10000

// Walker reads one JSON value token by token, refusing what JSON readers
// disagree on and encoding/json alone lets pass: invalid UTF-8 (read as
// U+FFFD), a key twice in one object, even but for its case (which one
// counts is up to the reader; encoding/json matches a field whatever its
// case), half a UTF-16 surrogate pair (read as U+FFFD; protojson refuses
// it: a *jsontext.SyntacticError), a number outside float64's range. After the value, Next says io.EOF,
// or a *TrailingDataError when more than white space follows. Its tokens
// come from jsontext (github.com/go-json-experiment/json, the Go team's
// encoding/json v2, pinned): encoding/json's Token costs a reflective
// decode a token, which made verifying 3,000 bundles 24% slower in CPU
// than the scanner it replaces (docs/performance.md).
type Walker struct {
	data  []byte
	dec   *jsontext.Decoder
	stack []frame
	done  bool // the one value has been read
}

// frame is an open object (its keys so far, and whether a key or a value
// comes next) or array.
type frame struct {
	object  bool
	wantKey bool
	keys    keySet
}

// NewWalker walks data.
func NewWalker(data []byte) (*Walker, error) {
	if !utf8.Valid(data) {
		return nil, ErrInvalidUTF8
	}
	// Duplicate names are this walk's to find (and type), but for their
	// case too; the depth is jsontext's, MaxDepth.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	return &Walker{data: data, dec: dec}, nil
}

// ErrInvalidUTF8 is input that is not UTF-8.
var ErrInvalidUTF8 = errors.New("it is not valid UTF-8")

// DuplicateKeyError is a key given twice in one object, or twice but for
// its case.
type DuplicateKeyError struct{ Key string }

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("key %q is given twice in one object", e.Key)
}

// NumberError is a number outside float64's range.
type NumberError struct {
	Text   string
	Offset int
}

func (e *NumberError) Error() string {
	return fmt.Sprintf("number %s at byte %d is not a float64", e.Text, e.Offset)
}

// Next is the next token; io.EOF after the value.
func (w *Walker) Next() (Token, error) {
	if w.done {
		return Token{}, w.end()
	}
	start := w.dec.InputOffset()
	tok, err := w.dec.ReadToken()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return Token{}, err
	}
	t := Token{End: int(w.dec.InputOffset())}
	t.Start = t.End - len(bytes.TrimLeft(w.data[start:t.End], " \t\r\n,:"))
	if err := w.classify(&t, tok); err != nil {
		return Token{}, err
	}
	w.done = len(w.stack) == 0
	return t, nil
}

// classify sets t's kind and text, and checks it where it stands.
func (w *Walker) classify(t *Token, tok jsontext.Token) error {
	top := w.top()
	isKey := top != nil && top.object && top.wantKey
	if top != nil && top.object {
		top.wantKey = !top.wantKey
	}
	switch k := tok.Kind(); k {
	case '{', '}', '[', ']':
		return w.delim(t, byte(k))
	case '"':
		t.Kind, t.Text = String, tok.String()
		if isKey {
			t.Kind = Key
			if !top.keys.add(t.Text) {
				return &DuplicateKeyError{Key: t.Text}
			}
		}
	case '0':
		t.Kind, t.Text = Number, string(w.data[t.Start:t.End])
		if _, err := strconv.ParseFloat(t.Text, 64); err != nil {
			return &NumberError{Text: t.Text, Offset: t.Start}
		}
	default:
		t.Kind, t.Text = Literal, string(w.data[t.Start:t.End])
	}
	return nil
}

// delim opens or closes an object or array.
func (w *Walker) delim(t *Token, d byte) error {
	switch d {
	case '{', '[':
		if len(w.stack) >= MaxDepth {
			return fmt.Errorf("nested deeper than %d levels", MaxDepth)
		}
		t.Kind = ArrayStart
		if d == '{' {
			t.Kind = ObjectStart
		}
		w.stack = append(w.stack, frame{object: d == '{', wantKey: true})
	default:
		t.Kind = ArrayEnd
		if d == '}' {
			t.Kind = ObjectEnd
		}
		w.stack = w.stack[:len(w.stack)-1]
		if top := w.top(); top != nil && top.object {
			top.wantKey = true // the value just closed was a key's
		}
	}
	return nil
}

func (w *Walker) top() *frame {
	if len(w.stack) == 0 {
		return nil
	}
	return &w.stack[len(w.stack)-1]
}

// Skip reads past the rest of the value that begins with t (nothing when
// t is a scalar), and says where it ends in the input.
func (w *Walker) Skip(t Token) (end int, err error) {
	if t.Kind != ObjectStart && t.Kind != ArrayStart {
		return t.End, nil
	}
	for depth := 1; depth > 0; {
		if t, err = w.Next(); err != nil {
			return 0, err
		}
		switch t.Kind {
		case ObjectStart, ArrayStart:
			depth++
		case ObjectEnd, ArrayEnd:
			depth--
		}
	}
	return t.End, nil
}

// end is what Next says after the value: io.EOF, or what follows it.
func (w *Walker) end() error {
	at := w.dec.InputOffset()
	if len(bytes.TrimLeft(w.data[at:], " \t\r\n")) == 0 {
		return io.EOF
	}
	return &TrailingDataError{Offset: int64(len(w.data) - len(bytes.TrimLeft(w.data[at:], " \t\r\n")))}
}
