// Package termwidth says how many columns a person's output may take and
// fits text to them: the terminal's width, else $COLUMNS, else 80, so
// that a report piped to a file or a CI log reads as it would in an
// 80-column terminal.
package termwidth

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
	"golang.org/x/text/width"
)

// Default is the width assumed of output that is no terminal, when
// $COLUMNS does not say: the classic terminal's.
const Default = 80

// minWidth is the narrowest width fitted to: a narrower terminal's lines
// wrap anyway, and text cut to a few columns would say nothing.
const minWidth = 20

// Columns is the width of w: a terminal's own, else $COLUMNS (a positive
// number), else Default.
func Columns(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return max(n, minWidth)
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return max(n, minWidth)
	}
	return Default
}

// IsTerminal says whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Sized is a writer that says its width: a renderer that draws a table
// fits it to Columns (0: no limit).
type Sized interface {
	Columns() int
}

// Of is the width w says (Sized), 0 when it says none.
func Of(w io.Writer) int {
	if s, ok := w.(Sized); ok {
		return s.Columns()
	}
	return 0
}

// Display is how many terminal columns s takes: two for an East Asian
// wide or fullwidth character, one for any other.
func Display(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Wrap breaks s into lines of at most cols columns, at spaces where it
// can, within a word where one is longer than a line; each line after the
// first starts with indent (counted in the width). s is one line.
func Wrap(s string, cols int, indent string) []string {
	if cols <= 0 || Display(s) <= cols {
		return []string{s}
	}
	room := max(cols-Display(indent), 1)
	var lines []string
	prefix, avail := "", cols
	for Display(s) > avail {
		cut, end := breakAt(s, avail)
		lines = append(lines, prefix+strings.TrimRight(s[:end], " "))
		s = strings.TrimLeft(s[cut:], " ")
		prefix, avail = indent, room
	}
	if s != "" || len(lines) == 0 {
		lines = append(lines, prefix+s)
	}
	return lines
}

// breakAt is where a line of at most cols columns taken from s ends (end)
// and the rest starts (cut): after the last space that fits, else at cols
// columns. The space itself is dropped.
func breakAt(s string, cols int) (cut, end int) {
	w, lastSpace, fit := 0, -1, len(s)
	for i, r := range s {
		if w+runeWidth(r) > cols {
			fit = i
			break
		}
		if r == ' ' && i > 0 {
			lastSpace = i
		}
		w += runeWidth(r)
	}
	if lastSpace > 0 && strings.TrimLeft(s[:lastSpace], " ") != "" {
		return lastSpace + 1, lastSpace
	}
	if fit == 0 { // a character wider than the line: it takes the line
		_, size := utf8.DecodeRuneInString(s)
		fit = size
	}
	return fit, fit
}

// Writer wraps every line written through it to its width (Wrap, the
// continuation indented two columns past the line's own indent), and says
// that width to the tables drawn through it (Sized), which fit themselves.
// Text is written a line at a time, as its newline arrives; Flush writes
// a last line without one.
type Writer struct {
	w    io.Writer
	cols int
	line []byte
}

// NewWriter wraps what is written to w at cols columns (0: no limit).
func NewWriter(w io.Writer, cols int) *Writer { return &Writer{w: w, cols: cols} }

// Columns is the width the Writer wraps to.
func (t *Writer) Columns() int { return t.cols }

// maxLine caps the bytes held of a line without its newline: past it the
// line is written as it stands.
const maxLine = 1 << 20

func (t *Writer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.line = append(t.line, p...)
			if len(t.line) > maxLine {
				return n, t.Flush()
			}
			return n, nil
		}
		t.line = append(t.line, p[:i]...)
		p = p[i+1:]
		if err := t.emit(true); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Flush writes the line held without its newline, if any.
func (t *Writer) Flush() error {
	if len(t.line) == 0 {
		return nil
	}
	return t.emit(false)
}

func (t *Writer) emit(newline bool) error {
	s := string(t.line)
	t.line = t.line[:0]
	indent := s[:len(s)-len(strings.TrimLeft(s, " "))] + "  "
	var b strings.Builder
	for i, l := range Wrap(s, t.cols, indent) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if newline {
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}
