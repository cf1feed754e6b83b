package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/rundir"
)

// sequentialSweep are the runs of a two-cell abba sweep of one look at 3
// pairs at level 0.001 (a spending boundary's), each cell's values by
// block.
func sequentialSweep(values map[string][3][2]float64) []Run {
	cells := []string{"c=1", "c=2"}
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 3, Alpha: 0.05, Boundary: decide.OBFSpending, LookAlphas: []float64{0.001}, Rule: &rundir.StopRule{}}
	p := &rundir.Plan{Scenario: "s", Order: "abba", Sequential: seq}
	for _, c := range cells {
		p.Cells = append(p.Cells, rundir.PlannedCell{Name: c, MatchedDigest: "m-" + c})
	}
	var vs []float64
	for b := range 3 {
		for _, c := range cells {
			arms := []int{0, 1}
			if b%2 == 1 {
				arms = []int{1, 0}
			}
			for _, a := range arms {
				p.Runs = append(p.Runs, rundir.PlannedRun{Index: len(p.Runs) + 1, Arm: []string{"blocking", "async"}[a], Cell: c})
				vs = append(vs, values[c][b][a])
			}
		}
	}
	return planRuns(p, vs)
}

// A sequential sweep's cell is held to its stopping look's level, the
// level of its share of the family of cells: a cell inconclusive at its
// look (p=0.032) was once called improved in the sweep, its adjusted p
// held to the 96% interval's 0.04, which no look tests at.
func TestSweepCellIsHeldToItsLooksLevel(t *testing.T) {
	runs := sequentialSweep(map[string][3][2]float64{
		"c=1": {{1000, 1050}, {1000, 1100}, {1000, 1080}},
		"c=2": {{1000, 1200}, {1000, 1201}, {1000, 1199}},
	})
	alone := Compare(ofCell(runs, "c=1"), Options{})
	if p := *alone.Deltas[0].P; alone.Verdict != Inconclusive || p <= 0.001 || p > 0.04 {
		t.Fatalf("cell c=1 alone: %s p=%v; the test needs it inconclusive at its look with p below 0.04", alone.Verdict, p)
	}
	sw := CompareSweep(runs, Options{})
	want := map[string]string{"c=1": Inconclusive, "c=2": Improved}
	for _, c := range sw.Cells {
		d := c.Comparison.Deltas[0]
		if d.Verdict != want[c.Cell] || c.Comparison.Verdict != want[c.Cell] {
			t.Errorf("cell %s in the sweep: %s (%s), want %s", c.Cell, d.Verdict, d.Why, want[c.Cell])
		}
		level := d.Looks[len(d.Looks)-1].Alpha
		if c.Cell == "c=2" && (level > 0.03 || !strings.Contains(d.Why, "<= "+numfmt.Significant(level, 3)+" ")) {
			t.Errorf("cell c=2 decided at another level than its look's: %s", d.Why)
		}
	}
}
