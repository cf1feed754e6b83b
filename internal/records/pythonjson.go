package records

import (
	"bytes"
	"io"
)

// Python's json module writes float("inf") and float("nan") as Infinity,
// -Infinity and NaN, which JSON has not: records written by Python
// benchmark clients read them as null, outside strings. A pythonReader
// replaces them as the decoder reads, so that no converted copy of the
// file is made, and says where, so that an offset in what was decoded
// names the byte of the file.

// pythonTokens are the tokens replaced, the longer first.
var pythonTokens = []string{"-Infinity", "Infinity", "NaN"}

// jsonShift is where a pythonReader replaced a token: the offsets just
// after it in what it read out and in the file.
type jsonShift struct{ conv, orig int }

// originalOffset maps an offset of what a pythonReader read out to the
// file's, by the replacements before it.
func originalOffset(shifts []jsonShift, at int) int {
	orig := at
	for _, s := range shifts {
		if s.conv > at {
			break
		}
		orig = s.orig + at - s.conv
	}
	return orig
}

// pythonReader reads data with Python's non-standard tokens read as null.
type pythonReader struct {
	data     []byte
	i        int    // the next byte of data
	pending  []byte // what a replacement left to read out
	out      int    // bytes read out so far
	inString bool
	escaped  bool
	plain    bool // data holds no token to replace: read as it is
	shifts   []jsonShift
}

func newPythonReader(data []byte) *pythonReader {
	return &pythonReader{data: data, plain: !bytes.Contains(data, []byte("Infinity")) && !bytes.Contains(data, []byte("NaN"))}
}

func (p *pythonReader) Read(b []byte) (int, error) {
	if p.plain {
		n := copy(b, p.data[p.i:])
		p.i += n
		if n == 0 && len(b) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
	n := 0
	for n < len(b) && (len(p.pending) > 0 || p.i < len(p.data)) {
		if len(p.pending) > 0 {
			c := copy(b[n:], p.pending)
			p.pending, n = p.pending[c:], n+c
			continue
		}
		if tok := p.token(); tok != "" {
			p.i += len(tok)
			p.pending = []byte("null")
			p.shifts = append(p.shifts, jsonShift{conv: p.out + n + len("null"), orig: p.i})
			continue
		}
		b[n] = p.data[p.i]
		p.i, n = p.i+1, n+1
	}
	p.out += n
	if n == 0 && len(b) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// token says which token to replace begins at the next byte, "" when it
// is none (it is in a string, or another byte), noting strings.
func (p *pythonReader) token() string {
	c := p.data[p.i]
	if p.inString {
		switch {
		case p.escaped:
			p.escaped = false
		case c == '\\':
			p.escaped = true
		case c == '"':
			p.inString = false
		}
		return ""
	}
	if c == '"' {
		p.inString = true
		return ""
	}
	for _, tok := range pythonTokens {
		if bytes.HasPrefix(p.data[p.i:], []byte(tok)) {
			return tok
		}
	}
	return ""
}

// pythonJSON is data as a pythonReader reads it.
func pythonJSON(data []byte) []byte {
	out, _ := io.ReadAll(newPythonReader(data)) // a reader of memory does not fail
	return out
}
