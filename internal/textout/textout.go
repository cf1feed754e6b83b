// Package textout writes text for a person line by line and keeps the
// first write error, so that a report checks its writer once, at its end:
// a report to a full disk or a closed pipe then fails, instead of ending
// short with success.
package textout

import (
	"fmt"
	"io"
)

// Writer writes to an io.Writer until a write fails; from then on it
// writes nothing and Err returns that failure.
type Writer struct {
	w   io.Writer
	err error
}

// New writes to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Printf writes as fmt.Fprintf does.
func (t *Writer) Printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// Println writes as fmt.Fprintln does.
func (t *Writer) Println(args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintln(t.w, args...)
	}
}

// Write makes a Writer an io.Writer, for renderers that take one.
func (t *Writer) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.w.Write(p)
	t.err = err
	return n, err
}

// Err is the first write error, or nil.
func (t *Writer) Err() error { return t.err }

// Columns is the width of the writer written to (termwidth.Sized), 0 when
// it says none: a table drawn through a Writer fits what it writes to.
func (t *Writer) Columns() int {
	if s, ok := t.w.(interface{ Columns() int }); ok {
		return s.Columns()
	}
	return 0
}
