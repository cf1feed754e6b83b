package campaign

import (
	"fmt"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/rundir"
)

// lookCell takes a sequential sweep's look at the cell of run done (the
// runs before it included) when that run ends a counted block of its
// cell from MinPairs on: the cell's runs so far compared as compare
// will, the look recorded in plan.json with its cell. A decided cell (or
// one censored for a reason more runs cannot remove) stops: its later
// runs are not run, the other cells go on. It says whether every cell
// has stopped, which stops the campaign.
func (c *execution) lookCell(r *Result, done int) bool {
	p := r.Plan
	cell := p.Runs[done-1].Cell
	k := len(c.Scenario.ArmOrder)
	ran := 0
	for _, pr := range p.Runs[:done] {
		if pr.Cell == cell {
			ran++
		}
	}
	pairs := ran/k - p.Warmup
	if ran%k != 0 || pairs < p.Sequential.MinPairs || p.CellsDecided[cell] != "" {
		return false
	}
	for _, l := range p.Looks {
		if l.Cell == cell && l.Pairs == pairs {
			return false // taken before the campaign was resumed
		}
	}
	look := c.compareCell(r, cell, pairs)
	p.Looks = append(p.Looks, look.Look)
	if !look.undecided {
		if p.CellsDecided == nil {
			p.CellsDecided = map[string]string{}
		}
		p.CellsDecided[cell] = fmt.Sprintf("look at pair %d of at most %d: %s", pairs, p.Sequential.MaxPairs, look.Verdict)
		if look.futile {
			p.CellsDecided[cell] += futileStop
		}
	}
	stop := len(p.CellsDecided) == len(p.Cells)
	if stop {
		p.Decided = everyCellStopped(p.CellsDecided, p.Looks)
		r.Decided = p.Decided
	}
	if !r.record(fmt.Sprintf("recording the look of cell %s at pair %d", cell, pairs)) {
		stop = true
	}
	if c.Progress != nil {
		c.Progress(Event{Index: done, Total: c.total, State: "look", Look: &look.Look, Decided: p.CellsDecided[cell], CellsLeft: len(p.Cells) - len(p.CellsDecided)})
	}
	return stop
}

// everyCellStopped says how a sweep's cells ended once each stopped at a
// look: how many decided (a change, or no change) and how many stopped
// undecided (the futility stop, or censored for a reason more runs
// cannot remove), so no cell that stopped undecided is called decided.
// A cell's verdict is its last look's, never read back from its reason.
func everyCellStopped(stopped map[string]string, looks []rundir.Look) string {
	last := map[string]rundir.Look{}
	for _, l := range looks {
		if l.Pairs >= last[l.Cell].Pairs {
			last[l.Cell] = l
		}
	}
	decided := 0
	for cell := range stopped {
		if v := last[cell].Verdict; v == compare.Improved || v == compare.Regressed || v == compare.NoChange {
			decided++
		}
	}
	s := fmt.Sprintf("looks of every cell: each of its %d cells stopped, %d decided", len(stopped), decided)
	if undecided := len(stopped) - decided; undecided > 0 {
		s += fmt.Sprintf(", %d undecided (the pairs left unlikely to decide, or censored)", undecided)
	}
	return s
}

// cellLook is a look, whether it left the cell undecided and whether
// the futility stop ended it.
type cellLook struct {
	rundir.Look
	undecided, futile bool
}

// compareCell compares the cell's runs so far (the runs not made yet are
// expected), as one look.
func (c *Config) compareCell(r *Result, cell string, pairs int) cellLook {
	runs, cleanup, err := compare.LoadRuns([]string{r.Out}, bundle.VerifyOptions{})
	defer cleanup()
	look := cellLook{Look: rundir.Look{Pairs: pairs, Cell: cell}}
	if err != nil {
		look.Verdict = "error: " + err.Error()
		return look
	}
	var mine []compare.Run
	for _, run := range runs {
		if compare.CellOf(run) == cell {
			mine = append(mine, run)
		}
	}
	// The cell's runs carry the signed plan's cells: compare holds each
	// cell's test to its share of the sweep's alpha at this look as it
	// will at the end, so the cell's stop and its verdict are one
	// decision (no second test of the family is laid over the look's).
	opts := c.Compare
	if rule := r.Plan.Sequential.Rule; rule != nil {
		opts.Metrics = rule.Metrics
	}
	res := compare.Compare(mine, opts)
	look.Verdict, look.undecided = res.Verdict, res.Unfinished
	look.futile = res.Stopped != nil && res.Stopped.Futile
	if look.undecided {
		look.Verdict = compare.Inconclusive
	}
	if len(res.Deltas) > 0 {
		look.Delta, look.Alpha = res.Deltas[0].Pct, r.Plan.Sequential.LookAlpha
		if ls := res.Deltas[0].Looks; len(ls) > 0 {
			look.Alpha = ls[len(ls)-1].Alpha // the level of the look just taken, at the cell's share
		}
		if res.Verdict == compare.Improved || res.Verdict == compare.Regressed {
			look.P, _ = res.Deltas[0].Tested()
		}
	}
	return look
}

// cellStopped says whether run i is of a sweep's cell a look decided
// before it: it is then not run (compare expects it missing).
func (r *Result) cellStopped(i int) bool {
	cell := r.Plan.Runs[i].Cell
	return cell != "" && r.Plan.CellsDecided[cell] != ""
}
