package texttable

import (
	"bytes"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/termwidth"
)

// The style every report shares: borders above and below the header and
// at the end, a cell's lines as lines of its row, a short row padded,
// cells trimmed, and a wide character two columns wide.
func TestWrite(t *testing.T) {
	var b strings.Builder
	err := Write(&b, []string{"arm", "n", "note"}, [][]string{
		{"async", "5", "  two\nlines"},
		{"blocking"},
		{"中文", "1", "a\tb"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `+----------+---+--------+
| arm      | n | note   |
+----------+---+--------+
| async    | 5 | two    |
|          |   | lines  |
| blocking |   |        |
| 中文     | 1 | a    b |
+----------+---+--------+
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteHeaderOnly(t *testing.T) {
	var b strings.Builder
	if err := Write(&b, []string{"run index", "arm"}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "+-----------+-----+\n| run index | arm |\n+-----------+-----+\n"; b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A table drawn to a writer that says its width fits it: the widest column
// (a long reason) is narrowed and its cell wrapped, the others kept whole.
func TestWriteFitsTheWidthItIsGiven(t *testing.T) {
	var buf bytes.Buffer
	w := termwidth.NewWriter(&buf, 80)
	reason := "rank-exited (arm async, role ctx rank 0): ctx rank 0 exited with status 127 during phase start; last log line: disaggsim not found"
	if err := Write(w, []string{"run", "arm", "run", "evidence", "took", "output_throughput (raw)", "reason"}, [][]string{
		{"1", "async", "failed", "censored", "250ms", "-", reason},
		{"2", "blocking", "succeeded", "accepted", "1.3s", "16,027", ""},
	}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		if n := termwidth.Display(l); n != termwidth.Display(lines[0]) || n > 80 {
			t.Errorf("line of %d columns (the border %d, the width 80): %q", n, termwidth.Display(lines[0]), l)
		}
	}
	if !strings.Contains(buf.String(), "| succeeded | accepted |") {
		t.Errorf("the narrow columns are kept whole:\n%s", buf.String())
	}
	var words []string
	for _, l := range lines[3:] {
		if cells := strings.Split(l, "|"); len(cells) > 7 {
			words = append(words, strings.Fields(cells[7])...)
		}
	}
	if got := strings.Join(words, " "); !strings.Contains(got, reason) {
		t.Errorf("the reason wrapped reads %q, want it whole", got)
	}
}
