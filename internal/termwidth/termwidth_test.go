package termwidth

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Output that is no terminal is as wide as $COLUMNS says, else 80.
func TestColumnsOfOutputThatIsNoTerminal(t *testing.T) {
	var buf bytes.Buffer
	for _, c := range []struct {
		env  string
		want int
	}{{"", Default}, {"132", 132}, {"0", Default}, {"-5", Default}, {"wide", Default}, {"5", minWidth}} {
		t.Setenv("COLUMNS", c.env)
		if got := Columns(&buf); got != c.want {
			t.Errorf("COLUMNS=%q: %d columns, want %d", c.env, got, c.want)
		}
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Setenv("COLUMNS", "")
	if got := Columns(f); got != Default || IsTerminal(f) {
		t.Errorf("a file: %d columns, terminal %v; want %d, no terminal", got, IsTerminal(f), Default)
	}
}

// Every line written through a Writer fits its width: long lines break at
// spaces, continued two columns past their own indent; a word longer than
// a line is cut; lines that fit pass as they are; wide characters count
// two columns.
func TestWriterFitsEveryLine(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, 30)
	text := "short line\n" +
		"design: abba campaign: each treatment run is compared with the baseline run of its block\n" +
		"  rank-exited (arm async): ctx rank 0 exited with status 127 during phase start\n" +
		"workload: sha256-length-prefixed-prompt-sha256-v1:256:a6bb6239f480b1e64e86\n" +
		"時間時間時間時間時間時間時間時間時間時間時間時間\n" +
		"no newline at the end of this last line of text"
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if lines[0] != "short line" || lines[1] != "design: abba campaign: each" || lines[2] != "  treatment run is compared" {
		t.Errorf("first lines %q", lines[:3])
	}
	for _, l := range lines {
		if Display(l) > 30 {
			t.Errorf("line of %d columns: %q", Display(l), l)
		}
	}
	if !strings.Contains(buf.String(), "\n  rank-exited (arm async):\n    ctx rank 0 exited") {
		t.Errorf("an indented line is continued past its indent:\n%s", buf.String())
	}
	if strings.Join(strings.Fields(buf.String()), "") != strings.Join(strings.Fields(text), "") {
		t.Errorf("wrapping lost or added text:\n%s", buf.String())
	}
	if Of(w) != 30 || Of(&buf) != 0 {
		t.Errorf("widths said: %d, %d", Of(w), Of(&buf))
	}
}
