package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/numfmt"
)

// A sweep's Markdown report is the table cell x arm, each treatment with
// its raw and Holm-adjusted p, a censored cell marked so beside cells
// that stand, and each cell's verdict and reasons.
func TestSweepMarkdownIsTheTableOfCellsAndArms(t *testing.T) {
	sw := CompareSweep(censoredCellRuns(), Options{})
	var b bytes.Buffer
	if err := sw.Render(&b, "markdown", ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	raw8, holm8 := sw.Cells[0].RawP["async"], *sw.Cells[0].Comparison.Deltas[0].P
	for _, want := range []string{
		"## abbench sweep: ⛔ censored",
		"| cell | arm | n | median | delta | ",
		" | raw p | holm p | verdict |",
		"| concurrency=8 | async | 5 | ",
		"| " + numfmt.P(raw8) + " | " + numfmt.P(holm8) + " | improved |",
		"| concurrency=8 | blocking | 5 | ",
		"| concurrency=128 | async | ",
		"- **concurrency=8**: improved: async vs blocking",
		"### Cell concurrency=128",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if rows := strings.Count(md, "\n| concurrency="); rows != 6 {
		t.Errorf("%d table rows, want 6 (3 cells x 2 arms):\n%s", rows, md)
	}
}
