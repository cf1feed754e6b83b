package compare

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/svgplot"
	"github.com/abbench/abbench/internal/svgplot/rendertest"
)

// A sweep's plot is one chart of the change by cell, not a plot per cell
// stacked: each cell named under its change and interval, coloured by
// its verdict, a censored cell said so, the change axis in percent
// around zero and no wider than the changes need.
func TestSweepSVGIsOneChartOfTheChangeByCell(t *testing.T) {
	sw := CompareSweep(censoredCellRuns(), Options{})
	var b bytes.Buffer
	if err := sw.SVG(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if h := regexp.MustCompile(`^<svg [^>]*height="([0-9]+)"`).FindStringSubmatch(s); h == nil || h[1] != "440" {
		t.Errorf("the plot's height %v, want one chart of 440 px", h)
	}
	if n := strings.Count(s, "<svg"); n != 1 {
		t.Errorf("%d svg elements, want one chart", n)
	}
	for _, want := range []string{"cell concurrency=8", "cell concurrency=32", "cell concurrency=128", "change vs baseline median (%)", ">censored<", "output_throughput (tokens/s)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	improved := `stroke="` + svgplot.Green + `" stroke-width="3"`
	if sw.Cells[0].Comparison.Verdict == Improved && strings.Count(s, improved) < 3 {
		t.Errorf("concurrency=8's improvement is not drawn green:\n%s", s)
	}
	var most float64
	for _, c := range sw.Cells {
		for _, d := range c.Comparison.Deltas {
			if d.Interval != nil {
				most = max(most, -d.Interval[0], d.Interval[1])
			}
		}
	}
	for _, m := range regexp.MustCompile(`text-anchor="end">([0-9,.-]+)</text>`).FindAllStringSubmatch(s, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			t.Fatal(err)
		}
		if v > 2*most+10 || v < -2*most-10 {
			t.Errorf("a tick at %v%%: the changes reach %.1f%%", v, most)
		}
	}
	rendertest.Check(t, rendertest.PNG(t, "sweep", b.Bytes()), int(svgWidth), int(sweepSVGHeight), 0.01, svgplot.Green, svgplot.Red)
}
