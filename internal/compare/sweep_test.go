package compare

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// sweepRuns are the runs of an interleaved sweep campaign: per cell, its
// values of each arm (blocking, async alternating), each run with its
// cell's signed campaign reference and its cell's matched digest.
func sweepRuns(cells []string, values map[string][2][]float64) []Run {
	p := &rundir.Plan{Scenario: "s", Order: "interleaved"}
	type made struct {
		cell, arm string
		v         float64
	}
	var planned []made
	for _, c := range cells {
		p.Cells = append(p.Cells, rundir.PlannedCell{Name: c, MatchedDigest: "m-" + c})
	}
	for i := range len(values[cells[0]][0]) {
		for _, c := range cells {
			planned = append(planned, made{c, "blocking", values[c][0][i]}, made{c, "async", values[c][1][i]})
		}
	}
	var vs []float64
	for i, m := range planned {
		p.Runs = append(p.Runs, rundir.PlannedRun{Index: i + 1, Arm: m.arm, Cell: m.cell})
		vs = append(vs, m.v)
	}
	return planRuns(p, vs)
}

// planRuns are the runs of plan p, run i of value vs[i], each with its
// cell's signed campaign reference and its cell's matched digest.
func planRuns(p *rundir.Plan, vs []float64) []Run {
	var runs []Run
	for i, pr := range p.Runs {
		e := ev(pr.Arm, fmt.Sprintf("t%d", i+1), vs[i])
		e.Cell, e.MatchedDigest = pr.Cell, "m-"+pr.Cell
		ref := p.Ref(i + 1)
		runs = append(runs, Run{Path: rundir.RunID(i+1, pr.Arm), Evidence: e, Campaign: &ref})
	}
	return runs
}

func ofCell(runs []Run, cell string) []Run {
	var out []Run
	for _, r := range runs {
		if CellOf(r) == cell {
			out = append(out, r)
		}
	}
	return out
}

var threeCells = []string{"concurrency=8", "concurrency=32", "concurrency=128"}

// censoredCellRuns are three cells of a clear gain, cell
// concurrency=128's async runs not accepted.
func censoredCellRuns() []Run {
	runs := sweepRuns(threeCells, map[string][2][]float64{"concurrency=8": clearGain(), "concurrency=32": clearGain(), "concurrency=128": clearGain()})
	for i := range runs {
		if runs[i].Evidence.Cell == "concurrency=128" && runs[i].Evidence.Arm == "async" {
			runs[i].Evidence.Accepted = false
		}
	}
	return runs
}

func clearGain() [2][]float64 {
	return [2][]float64{{100, 101, 99, 100.5, 99.5}, {110, 111.5, 109, 110.2, 109.8}}
}

// Each cell is compared within itself: the cells' matched digests differ
// (one comparison of them all would be censored config-mismatch), and
// each cell's test is Holm-adjusted for the family of three.
func TestSweepComparesEachCellWithinItself(t *testing.T) {
	runs := sweepRuns(threeCells, map[string][2][]float64{"concurrency=8": clearGain(), "concurrency=32": clearGain(), "concurrency=128": clearGain()})
	if !IsSweep(runs) {
		t.Fatal("runs of cells are a sweep")
	}
	if all := Compare(runs, Options{}); all.Verdict != Censored {
		t.Fatalf("the cells compared as one: %s, want censored (their matched digests differ)", all.Verdict)
	}
	sw := CompareSweep(runs, Options{})
	if sw.Verdict != SweepAccepted || sw.Family != 3 || len(sw.Cells) != 3 {
		t.Fatalf("sweep %s, family %d, %d cells; want accepted, 3, 3 (%v)", sw.Verdict, sw.Family, len(sw.Cells), sw.Reasons)
	}
	for i, c := range sw.Cells {
		r := NewReport(c.Comparison)
		if c.Cell != threeCells[i] {
			t.Errorf("cell %d is %s, want the plan's order (%s)", i, c.Cell, threeCells[i])
		}
		if r.Verdict != Improved || r.MatchedDigest != "m-"+c.Cell || len(r.Runs) != 10 {
			t.Errorf("cell %s: %s, digest %s, %d runs; want improved, its own digest, its 10 runs", c.Cell, r.Verdict, r.MatchedDigest, len(r.Runs))
		}
		raw, adj := c.RawP["async"], *r.Deltas[0].P
		if adj < raw || adj > 3*raw+1e-15 {
			t.Errorf("cell %s: Holm-adjusted p %v, raw %v: want between raw and three times raw", c.Cell, adj, raw)
		}
	}
}

// Holm's adjustment takes back verdicts the cells' tests give alone but
// the family does not hold: two weak cells beside a clear one are each
// adjusted by two (step-down: the clear cell's p is the smallest).
func TestSweepHolmTakesBackWeakCells(t *testing.T) {
	weak := [2][]float64{{100, 101, 99, 100.5, 99.5}, {101.9, 101.2, 100.6, 103.1, 100.9}}
	runs := sweepRuns(threeCells, map[string][2][]float64{"concurrency=8": clearGain(), "concurrency=32": weak, "concurrency=128": weak})
	alone := Compare(ofCell(runs, "concurrency=32"), Options{})
	if p := *alone.Deltas[0].P; alone.Verdict != Improved || p > 0.05 || 2*p <= 0.05 {
		t.Fatalf("a weak cell alone: %s p=%v; the test needs it improved alone but not adjusted by two", alone.Verdict, p)
	}
	sw := CompareSweep(runs, Options{})
	for _, c := range sw.Cells[1:] {
		d := c.Comparison.Deltas[0]
		if c.Comparison.Verdict != Inconclusive || !strings.Contains(d.Why, "Holm-adjusted for 3") {
			t.Errorf("weak cell %s in the sweep: %s (%s), want inconclusive after Holm", c.Cell, c.Comparison.Verdict, d.Why)
		}
		if c.RawP["async"] != *alone.Deltas[0].P || *d.P != 2*c.RawP["async"] {
			t.Errorf("cell %s: raw p %v, adjusted %v; want the cell's own %v, and twice it", c.Cell, c.RawP["async"], *d.P, *alone.Deltas[0].P)
		}
	}
	if sw.Cells[0].Comparison.Verdict != Improved {
		t.Errorf("the clear cell: %s", sw.Cells[0].Comparison.Verdict)
	}
	// The sweep's verdict line counts its tests' verdicts: "accepted"
	// alone read as if every cell won.
	var text, summary, md strings.Builder
	if err := sw.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := sw.WriteSummary(&summary, "abbench compare out"); err != nil {
		t.Fatal(err)
	}
	if err := sw.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "summary": summary.String()} {
		if !strings.Contains(out, "\nsweep: accepted: 1 improved, 2 inconclusive (") {
			t.Errorf("%s: the verdict line does not count the tests' verdicts:\n%s", name, out)
		}
	}
	if !strings.HasPrefix(md.String(), "## abbench sweep: ✅ accepted: 1 improved, 2 inconclusive\n") {
		t.Errorf("markdown heading: %q", strings.SplitN(md.String(), "\n", 2)[0])
	}
}

// A cell whose arm is broken is censored alone; the others stand, still
// adjusted for the whole family (the censored cell counts).
func TestSweepCensoredCellLeavesTheOthersStanding(t *testing.T) {
	sw := CompareSweep(censoredCellRuns(), Options{})
	if sw.Verdict != Censored || len(sw.Reasons) != 0 {
		t.Fatalf("sweep %s with reasons %v, want censored by its cell alone", sw.Verdict, sw.Reasons)
	}
	if sw.Family != 3 {
		t.Errorf("family %d, want 3: the censored cell counts", sw.Family)
	}
	for _, c := range sw.Cells {
		want := map[bool]string{true: Censored, false: Improved}[c.Cell == "concurrency=128"]
		if c.Comparison.Verdict != want {
			t.Errorf("cell %s: %s, want %s", c.Cell, c.Comparison.Verdict, want)
		}
	}
	var b bytes.Buffer
	if err := sw.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cell concurrency=128: CENSORED", "verdict concurrency=8: improved", "; async Holm-adjusted p", " for the sweep's 3 tests (raw p", "sweep: censored"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

// A sweep is compared whole: a cell of the signed plan that no run is
// given of censors the sweep, and so does a run of no cell.
func TestSweepIsComparedWhole(t *testing.T) {
	runs := sweepRuns(threeCells, map[string][2][]float64{"concurrency=8": clearGain(), "concurrency=32": clearGain(), "concurrency=128": clearGain()})
	without := append(ofCell(runs, "concurrency=8"), ofCell(runs, "concurrency=128")...)
	sw := CompareSweep(without, Options{})
	if sw.Verdict != Censored || len(sw.Reasons) == 0 || !strings.Contains(sw.Reasons[0].Detail, "cell concurrency=32 of the signed campaign plan has no run given") {
		t.Errorf("a missing cell: %s %v", sw.Verdict, sw.Reasons)
	}
	stray := runsOf(map[string][]float64{"async": {1}})[0]
	sw = CompareSweep(append(runs, stray), Options{})
	if sw.Verdict != Censored || len(sw.Reasons) == 0 || !strings.Contains(sw.Reasons[0].Detail, "is of no cell of the sweep") {
		t.Errorf("a run of no cell: %s %v", sw.Verdict, sw.Reasons)
	}
}

// A sequential sweep's cell that stopped at its look: the planned runs it
// did not need are its own cell's after its last run, not the whole
// plan's after it (which miscounted, even below zero).
func TestSweepStopCountsTheCellsRunsNotNeeded(t *testing.T) {
	cells := []string{"c=1", "c=2"}
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 10, Alpha: 0.05, LookAlpha: 0.0111, Rule: &rundir.StopRule{}}
	p := &rundir.Plan{Scenario: "s", Order: "abba", Sequential: seq}
	for _, c := range cells {
		p.Cells = append(p.Cells, rundir.PlannedCell{Name: c, MatchedDigest: "m-" + c})
	}
	for b := range 10 {
		for _, c := range cells {
			arms := []string{"blocking", "async"}
			if b%2 == 1 {
				arms[0], arms[1] = arms[1], arms[0]
			}
			for _, arm := range arms {
				p.Runs = append(p.Runs, rundir.PlannedRun{Index: len(p.Runs) + 1, Arm: arm, Cell: c})
			}
		}
	}
	var runs []Run
	for _, pr := range p.Runs[:12] { // three blocks of both cells: each decided at its first look
		v := map[string]float64{"blocking": 1000 + float64(pr.Index%3), "async": 1100 + float64(pr.Index%2)}[pr.Arm]
		e := ev(pr.Arm, fmt.Sprint("t", pr.Index), v)
		e.Cell, e.MatchedDigest = pr.Cell, "m-"+pr.Cell
		ref := p.Ref(pr.Index)
		runs = append(runs, Run{Path: rundir.RunID(pr.Index, pr.Arm), Evidence: e, Campaign: &ref})
	}
	sw := CompareSweep(runs, Options{})
	for _, c := range sw.Cells {
		st := c.Comparison.Stopped
		if st == nil || st.Pairs != 3 {
			t.Fatalf("cell %s: %s, stopped %+v (%v), want stopped at its look at pair 3", c.Cell, c.Comparison.Verdict, st, c.Comparison.Reasons)
		}
		if st.NotNeeded != 14 {
			t.Errorf("cell %s: %d run(s) not needed, want 14 (its 20 planned, 6 made)", c.Cell, st.NotNeeded)
		}
	}
}
