package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// SweepSchema names a sweep's comparison JSON format (docs/schema).
const SweepSchema = "abbench-sweep-v1"

// SweepAccepted is the verdict of a sweep none of whose cells is
// censored: each cell's own verdict then stands.
const SweepAccepted = "accepted"

// Holm names the correction a fixed sweep's tests are adjusted by.
const Holm = "holm"

// Sweep is the comparison of a sweep's runs (a scenario with a matrix):
// each cell compared within itself, as Compare compares one scenario's
// runs, every treatment's test of every cell one family, so that asking
// a question per cell does not mean a chance of a false verdict per cell:
// a fixed sweep's adjusted by Holm's step-down method, a sequential
// sweep's each held to its share of alpha at every look, its cell's stop
// too (SequentialShare).
type Sweep struct {
	Schema   string `json:"schema"` // SweepSchema
	Scenario string `json:"scenario"`
	// Verdict is Censored when a cell is censored or the sweep itself is
	// (Reasons), SweepAccepted otherwise.
	Verdict string `json:"verdict"`
	// Reasons censor the sweep as a whole: a cell of the plan no run was
	// given of, a run of no cell, runs of different campaigns.
	Reasons    []reason.Reason `json:"reasons"`
	Correction string          `json:"correction"` // Holm or SequentialShare
	// Family is the number of tests held to alpha together: every
	// treatment of every cell, a censored cell's included (its tests
	// reject nothing).
	Family int         `json:"family_size"`
	Cells  []SweepCell `json:"cells"`
}

// SweepCell is one cell's comparison.
type SweepCell struct {
	Cell string `json:"cell"`
	// RawP is each treatment's p before the adjustment, by arm; the
	// comparison's deltas hold the adjusted p and the verdict it gives
	// (a sequential sweep's: the same p, nothing adjusts it).
	RawP       map[string]float64 `json:"raw_p"`
	Comparison *Result            `json:"comparison"`
}

// CellOf is the cell of a sweep a run belongs to: as its evidence says
// (signed in its bundle), else as its campaign's plan names it; "" for a
// run of no sweep.
func CellOf(run Run) string {
	if run.Evidence != nil {
		return run.Evidence.Cell
	}
	if run.Campaign != nil && run.Campaign.Cell != "" {
		return run.Campaign.Cell
	}
	return run.Cell
}

// IsSweep says whether any of the runs is of a sweep's cell: they are
// then compared cell by cell (CompareSweep), never as one scenario.
func IsSweep(runs []Run) bool {
	return slices.ContainsFunc(runs, func(r Run) bool { return CellOf(r) != "" })
}

// CompareSweep compares a sweep's runs cell by cell and holds the cells'
// tests to alpha as one family (adjust). A cell censored for its own runs is
// censored alone: the other cells stand, adjusted for the whole family.
func CompareSweep(all []Run, opts Options) *Sweep {
	sw := &Sweep{Schema: SweepSchema, Correction: Holm, Reasons: []reason.Reason{}, Cells: []SweepCell{}}
	order, byCell := sw.group(all)
	if opts.Stored != nil {
		sw.Reasons = append(sw.Reasons, reason.New(reason.ConfigMismatch, "a stored baseline is compared with one scenario's runs, and these are a sweep's: compare each cell's runs with its own stored cell, or leave --baseline out"))
	}
	for _, cell := range order {
		r := Compare(byCell[cell], opts)
		if sw.Scenario == "" {
			sw.Scenario = r.Scenario
		}
		sw.Cells = append(sw.Cells, SweepCell{Cell: cell, RawP: map[string]float64{}, Comparison: r})
	}
	sw.adjust(opts)
	sw.Verdict = SweepAccepted
	if len(sw.Reasons) > 0 || slices.ContainsFunc(sw.Cells, func(c SweepCell) bool { return c.Comparison.Verdict == Censored }) {
		sw.Verdict = Censored
	}
	return sw
}

// group sorts the runs into cells, in the cell order the runs' signed
// campaign plan gives (else the order the runs come in), and says what
// makes the sweep itself incomplete: a planned cell with no run, a run of
// no cell, runs whose campaigns differ.
func (sw *Sweep) group(all []Run) ([]string, map[string][]Run) {
	byCell := map[string][]Run{}
	var order []string
	var ref *rundir.CampaignRef
	refPath := ""
	for _, run := range all {
		cell := CellOf(run)
		if cell == "" {
			sw.Reasons = append(sw.Reasons, reason.New(reason.RunMissing, "run %s is of no cell of the sweep: a sweep's runs are each of one cell (compare other runs apart)", run.Path))
			continue
		}
		if _, ok := byCell[cell]; !ok {
			order = append(order, cell)
		}
		byCell[cell] = append(byCell[cell], run)
		if c := run.Campaign; c != nil {
			if ref == nil {
				ref, refPath = c, run.Path
			} else if sweepKey(c) != sweepKey(ref) {
				sw.Reasons = append(sw.Reasons, reason.New(reason.RunMissing, "run %s and run %s belong to different campaigns (their signed plans differ): a sweep is one campaign, compared whole", run.Path, refPath))
			}
		}
	}
	if ref == nil || len(ref.Cells) == 0 {
		return order, byCell
	}
	for _, cell := range ref.Cells {
		if _, ok := byCell[cell]; !ok {
			sw.Reasons = append(sw.Reasons, reason.New(reason.RunMissing, "cell %s of the signed campaign plan has no run given: a sweep is compared whole", cell))
		}
	}
	for _, cell := range order {
		if !slices.Contains(ref.Cells, cell) {
			sw.Reasons = append(sw.Reasons, reason.New(reason.RunMissing, "cell %s is not a cell of the signed campaign plan of run %s (its cells: %s)", cell, refPath, strings.Join(ref.Cells, " ")))
		}
	}
	// The plan's order, then any cell it does not name (already censored).
	planned := slices.DeleteFunc(slices.Clone(ref.Cells), func(c string) bool { _, ok := byCell[c]; return !ok })
	for _, cell := range order {
		if !slices.Contains(planned, cell) {
			planned = append(planned, cell)
		}
	}
	return planned, byCell
}

// sweepKey is what every cell's campaign reference of one sweep shares.
func sweepKey(c *rundir.CampaignRef) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%d\x00%s", c.Scenario, c.Order, c.Seed, c.Arms, c.Warmup, strings.Join(c.Cells, "\x00"))
}

// adjust holds every treatment's test of every cell to the sweep's alpha
// as one family: a sequential sweep's were each decided at its share at
// every look, a cell's stop too (sharedFamily), and stand; a fixed
// design's are adjusted at once by Holm's method (holm).
func (sw *Sweep) adjust(opts Options) {
	rs, raw := make([]*Result, len(sw.Cells)), make([]map[string]float64, len(sw.Cells))
	for i, c := range sw.Cells {
		rs[i], raw[i] = c.Comparison, c.RawP
	}
	if shared := sharedFamily(rs, raw); shared > 0 {
		sw.Correction, sw.Family = SequentialShare, shared
		return
	}
	sw.Family = holm(rs, raw, opts, "tests of the sweep's cells")
}

// holm adjusts every treatment's test of every comparison of rs as one
// family by Holm's step-down method and decides each again at its
// adjusted p, keeping each raw p in raw (by arm); a censored comparison's
// treatments count in the family and reject nothing. A sequential
// family comes here only where its plan signed none (sharedFamily): its
// tests are the stopping looks', adjusted. It returns the family's size;
// what says what the family is, in the tests' reasons.
func holm(rs []*Result, raw []map[string]float64, opts Options, what string) int {
	type member struct{ result, delta int }
	var members []member
	var ds []decide.Decision
	family := 0
	for i, r := range rs {
		if r.Verdict == Censored {
			family += max(len(r.Arms)-1, 1)
			continue
		}
		for j, d := range r.Deltas {
			family++
			if d.P == nil || d.Pct == nil {
				continue
			}
			p, level := d.Tested()
			raw[i][d.Arm] = *p
			members = append(members, member{i, j})
			ds = append(ds, decide.Decision{Method: d.Method, N: d.N, Estimate: *d.Pct, Interval: d.Interval, P: p, Alpha: level, Effect: d.Effect, Verdict: d.Verdict})
		}
	}
	if family < 2 {
		return family // a family of one test: nothing to adjust
	}
	rule := decide.Rule{Alpha: opts.Alpha, Effect: opts.Effect, Method: opts.Method}
	for k, dec := range ds {
		m := members[k]
		r := rs[m.result]
		rule.HigherIsBetter = r.HigherIsBetter
		adj := decide.HolmFamily(ds, family, rule, what)[k]
		d := &r.Deltas[m.delta]
		switch q := r.Design.Sequential; {
		case q != nil && adj.Verdict != d.Verdict:
			adj.Meaning = decide.Meaning(adj.Verdict, dec.Effect, q.Alpha) // the looks together hold the design's alpha
		case q != nil && d.Stagewise:
			// The interval stays the stagewise one; the p is no longer
			// it, and the meaning must not say it is.
			adj.Meaning = decide.Meaning(adj.Verdict, dec.Effect, q.Alpha) + fmt.Sprintf(
				"; its %s interval is the stagewise one, which takes the design's looks into account; its p is the stopping look's own, Holm-adjusted for the %d %s and held to that look's level %s",
				decide.IntervalLevel(d.Alpha), family, what, numfmt.Significant(dec.Alpha, 3))
		case q != nil:
			adj.Meaning = d.Meaning
		}
		d.P, d.Verdict, d.Why, d.Meaning, d.Display = adj.P, adj.Verdict, adj.Why, adj.Meaning, display(adj.Verdict, dec.Estimate)
		d.Stagewise = false // its p is now the look's, adjusted
		d.HolmAdjusted, d.PLevel = true, dec.Alpha
	}
	for _, r := range rs {
		if r.Verdict != Censored {
			r.Verdict = overall(r.Deltas)
		}
	}
	return family
}

// Tested is the p d's test was decided by and the level it was held to:
// a sequential delta's, its stopping look's nominal p and that look's
// level (Holm's adjustment of a family applies to them: the stagewise p
// of a late look is above its level whenever an earlier look could have
// stopped it); else its own p and level.
func (d Delta) Tested() (*float64, float64) {
	if n := len(d.Looks); n > 0 && d.Looks[n-1].Alpha > 0 {
		if l := d.Looks[n-1]; l.P != nil {
			return l.P, l.Alpha
		}
		return d.P, d.Looks[n-1].Alpha
	}
	return d.P, d.Alpha
}

// FailsOn is the first cell's --fail-on condition met ("" for none), with
// the cell it is of.
func (sw *Sweep) FailsOn(failOn string) (cell, cond string) {
	for _, c := range sw.Cells {
		if f := c.Comparison.FailsOn(failOn); f != "" {
			return c.Cell, f
		}
	}
	return "", ""
}
