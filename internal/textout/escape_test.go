package textout

import (
	"errors"
	"strings"
	"testing"
)

// Control bytes in the values a report writes are shown as escapes: C0
// (newline and tab kept), DEL, C1, bytes that are not UTF-8, and the
// bidirectional overrides; other text, wide characters included, is
// written as it is.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"mode rank=0 terminal=1":    "mode rank=0 terminal=1",
		"a\x1b[2J\x1b]0;owned\x07b": `a\x1b[2J\x1b]0;owned\x07b`,
		"line\rover":                `line\x0dover`,
		"two\nlines\tand a tab":     "two\nlines\tand a tab",
		"del\x7f c1\u009b[31m":      `del\x7f c1\u009b[31m`,
		"bad \xff\xfe utf-8":        `bad \xff\xfe utf-8`,
		"admin\u202e\u2066txt.exe":  `admin\u202e\u2066txt.exe`,
		"宽 ✓ ↳ é":                   "宽 ✓ ↳ é",
		"nul\x00":                   `nul\x00`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Writer escapes every value, never its format (a progress line's own
// \r and \033[K stay), through Printf, Println and Write; a character a
// buffered writer cut between two writes arrives whole.
func TestWriterEscapesValuesNotTheFormat(t *testing.T) {
	var b strings.Builder
	w := New(&b)
	w.Printf("\r\033[K%s %q %v %d %5.1f\n", "mode\x1b[2J", "x\x1b", errors.New("e\x07"), 5, 2.5)
	w.Println("reason:", "last log line: \x1b[31mred", 7)
	row := []byte("| 宽 \x1b |\n")
	_, _ = w.Write(row[:3]) // within 宽
	_, _ = w.Write(row[3:])
	_, _ = w.Write([]byte{0xe5})
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	want := "\r\033[Kmode\\x1b[2J \"x\\x1b\" e\\x07 5   2.5\n" +
		"reason: last log line: \\x1b[31mred 7\n" +
		"| 宽 \\x1b |\n" + `\xe5`
	if b.String() != want {
		t.Errorf("wrote\n%q\nwant\n%q", b.String(), want)
	}
}
