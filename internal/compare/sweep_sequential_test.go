package compare

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/rundir"
)

// sequentialSweepRuns are the runs of a sequential sweep in abba order,
// every cell's blocks interleaved, each cell's async/blocking ratios of
// its blocks as given (a cell's blocking runs at 1000); the plan is of
// the design seq, its stop rule signing the family of cells.
func sequentialSweepRuns(seq *rundir.Sequential, cells []string, ratios map[string][]float64) []Run {
	p := &rundir.Plan{Scenario: "s", Order: "abba", Sequential: seq}
	for _, c := range cells {
		p.Cells = append(p.Cells, rundir.PlannedCell{Name: c, MatchedDigest: "m-" + c})
	}
	var vs []float64
	for b := range seq.MaxPairs {
		for _, c := range cells {
			arms := []string{"blocking", "async"}
			if b%2 == 1 {
				arms[0], arms[1] = arms[1], arms[0]
			}
			for _, arm := range arms {
				p.Runs = append(p.Runs, rundir.PlannedRun{Index: len(p.Runs) + 1, Arm: arm, Cell: c})
				v := 1000.0
				if arm == "async" {
					v *= ratios[c][b]
				}
				vs = append(vs, v)
			}
		}
	}
	return planRuns(p, vs)
}

// TestSequentialSweepCellsAreOneFamilyWithTheirStops: a sequential
// sweep's cells are one family held to alpha as a campaign's metrics are:
// each cell's test at its share at every look (its stop too), the verdict
// line's interval and p at the level the test was held to, so that no
// verdict disagrees with its interval. Before, each cell's looks were at
// the whole alpha and Holm's adjustment of the looks' p was laid over
// them: cell c=2 said inconclusive beside the 95% interval [+0.18%,
// +5.76%], which excludes no change (Holm-adjusted p 0.0488, raw 0.0244).
func TestSequentialSweepCellsAreOneFamilyWithTheirStops(t *testing.T) {
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 5, Alpha: 0.05, Boundary: decide.OBFSpending, LookAlphas: decide.OBFLevels(3, 5, 0.05),
		Rule: &rundir.StopRule{Effect: 1}}
	cells := []string{"c=1", "c=2", "c=3"}
	runs := sequentialSweepRuns(seq, cells, map[string][]float64{
		"c=1": {1.10, 1.102, 1.098, 1.101, 1.099},
		"c=2": {1.04, 1.005, 1.05, 1.015, 1.045},
		"c=3": {1.01, 0.99, 1.005, 0.995, 1.0},
	})
	sw := CompareSweep(runs, Options{Effect: 1})
	if sw.Verdict != SweepAccepted {
		t.Fatalf("sweep %s: %v", sw.Verdict, sw.Reasons)
	}
	if sw.Correction != SequentialShare || sw.Family != 3 {
		t.Errorf("a sequential sweep's correction %q over %d test(s), want %q over 3", sw.Correction, sw.Family, SequentialShare)
	}
	var text, md bytes.Buffer
	if err := sw.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	// Its raw p is its p: the Markdown table has no second column of it.
	if err := sw.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "raw p") || !strings.Contains(md.String(), " | p | verdict |\n") {
		t.Errorf("a sequential sweep's Markdown table:\n%s", md.String())
	}
	for _, c := range sw.Cells {
		d := c.Comparison.Deltas[0]
		if d.Interval == nil || d.P == nil {
			t.Fatalf("cell %s: no interval or p: %+v", c.Cell, d)
		}
		holdsZero := d.Interval[0] <= 0 && d.Interval[1] >= 0
		change := d.Verdict == Improved || d.Verdict == Regressed
		if change == holdsZero || change != (*d.P <= d.Alpha) || d.Alpha > 0.05/3 {
			t.Errorf("cell %s: %s beside the %s interval [%+.2f%%, %+.2f%%] and p %.4g at level %.4g", c.Cell, d.Verdict, decide.IntervalLevel(d.Alpha), d.Interval[0], d.Interval[1], *d.P, d.Alpha)
		}
		_, line, _ := strings.Cut(text.String(), "\nverdict "+c.Cell+": ")
		line, _, _ = strings.Cut(line, "\n")
		if !strings.Contains(line, fmt.Sprintf("at level %s", numfmt.Significant(d.Alpha, 3))) || !strings.Contains(line, decide.IntervalLevel(d.Alpha)+" interval") {
			t.Errorf("cell %s: the verdict line names no level its interval and p were held to: %q", c.Cell, line)
		}
	}
}
