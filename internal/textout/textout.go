// Package textout writes text for a person line by line and keeps the
// first write error, so that a report checks its writer once, at its end:
// a report to a full disk or a closed pipe then fails, instead of ending
// short with success. Every value it writes is escaped (Escape): no
// control byte a rank or a tool wrote reaches the reader's terminal raw.
package textout

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Writer writes to an io.Writer until a write fails; from then on it
// writes nothing and Err returns that failure.
type Writer struct {
	w   io.Writer
	err error
	cut []byte // the start of a character cut between two writes
}

// New writes to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Printf writes as fmt.Fprintf does, each value escaped (the format is
// abbench's own).
func (t *Writer) Printf(format string, args ...any) {
	if t.Err() == nil {
		_, t.err = fmt.Fprintf(t.w, format, escapeArgs(args)...)
	}
}

// Println writes as fmt.Fprintln does, each value escaped.
func (t *Writer) Println(args ...any) {
	if t.Err() == nil {
		_, t.err = fmt.Fprintln(t.w, escapeArgs(args)...)
	}
}

// Write makes a Writer an io.Writer, for renderers that take one (a
// table): what they write is escaped, newlines and tabs kept. A character
// a buffered renderer cut in two between writes is held until its end
// comes (at most utf8.UTFMax-1 bytes; Err writes what is left).
func (t *Writer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	data := p
	if len(t.cut) > 0 {
		data = append(t.cut, p...)
		t.cut = nil
	}
	if tail := cutRune(data); tail < len(data) {
		t.cut = append([]byte(nil), data[tail:]...)
		data = data[:tail]
	}
	t.write(data)
	if t.err != nil {
		return 0, t.err
	}
	return len(p), nil
}

// write writes data escaped.
func (t *Writer) write(data []byte) {
	if t.err != nil || len(data) == 0 {
		return
	}
	if firstUnsafe(string(data)) >= 0 {
		_, t.err = io.WriteString(t.w, Escape(string(data)))
		return
	}
	_, t.err = t.w.Write(data)
}

// cutRune is where an incomplete UTF-8 character at the end of data
// starts, or len(data).
func cutRune(data []byte) int {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				return i
			}
			break
		}
	}
	return len(data)
}

// Err writes what Write held of a character never completed (escaped:
// it is no UTF-8), then returns the first write error, or nil.
func (t *Writer) Err() error {
	if len(t.cut) > 0 {
		cut := t.cut
		t.cut = nil
		t.write(cut)
	}
	return t.err
}

// Columns is the width of the writer written to (termwidth.Sized), 0 when
// it says none: a table drawn through a Writer fits what it writes to.
func (t *Writer) Columns() int {
	if s, ok := t.w.(interface{ Columns() int }); ok {
		return s.Columns()
	}
	return 0
}
