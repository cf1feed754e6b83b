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

// A table that cannot fit a narrow terminal with its words whole is drawn
// as records, a line a column: every number whole, no line beyond the
// width, the empty cells left out; at 80 columns the same table is a grid.
func TestWriteDrawsRecordsWhereAGridCannotFit(t *testing.T) {
	header := []string{"arm", "n", "median", "cv", "delta", "95% interval", "p", "verdict"}
	rows := [][]string{
		{"async", "5", "28,613", "8.69%", "+53.10%", "[+39.02%, +66.98%]", "0.000338", "improved"},
		{"blocking", "5", "18,338", "4.72%", "", "", "", "baseline"},
	}
	var narrow bytes.Buffer
	if err := Write(termwidth.NewWriter(&narrow, 40), header, rows); err != nil {
		t.Fatal(err)
	}
	out := narrow.String()
	for _, l := range strings.Split(out, "\n") {
		if termwidth.Display(l) > 40 {
			t.Errorf("line of %d columns at 40: %q", termwidth.Display(l), l)
		}
	}
	for _, r := range rows {
		for c, cell := range r {
			if cell != "" && !strings.Contains(out, header[c]+strings.Repeat(" ", len("95% interval")-len(header[c]))+"  "+cell) {
				t.Errorf("no line %q: %q in\n%s", header[c], cell, out)
			}
		}
	}
	if strings.Count(out, "delta") != 1 || strings.Contains(out, "+--") {
		t.Errorf("want records, the baseline's empty delta left out:\n%s", out)
	}
	var wide bytes.Buffer
	if err := Write(termwidth.NewWriter(&wide, 80), header, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(wide.String(), "+----------+---+") {
		t.Errorf("at 80 columns, want the grid:\n%s", wide.String())
	}
}
