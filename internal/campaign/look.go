package campaign

import (
	"fmt"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/rundir"
)

// look takes a sequential campaign's look after done runs, when they end
// a counted block from MinPairs on: it compares the campaign so far as
// compare will (the runs not made yet are expected), records the look in
// plan.json, and says whether to stop: a decided verdict, or a comparison
// censored for a reason more runs cannot remove.
func (c *execution) look(r *Result, done int) bool {
	if len(r.Plan.Cells) > 0 {
		return c.lookCell(r, done)
	}
	p := r.Plan
	k := len(c.Scenario.ArmOrder)
	pairs := done/k - p.Warmup
	if done%k != 0 || pairs < p.Sequential.MinPairs {
		return false
	}
	for _, l := range p.Looks {
		if l.Pairs == pairs {
			return false // taken before the campaign was resumed: it did not decide (the plan would say so)
		}
	}
	runs, cleanup, err := compare.LoadRuns([]string{r.Out}, bundle.VerifyOptions{})
	defer cleanup()
	look := rundir.Look{Pairs: pairs}
	var res *compare.Result
	if err == nil {
		// The look holds the headline to the share of alpha the plan's
		// family of metrics gives it, as compare will: a plan resumed
		// keeps the family it was signed with.
		opts := c.Compare
		if p.Sequential.Rule != nil {
			opts.Metrics = p.Sequential.Rule.Metrics
		}
		res = compare.Compare(runs, opts)
	}
	switch {
	case err != nil:
		look.Verdict = "error: " + err.Error()
	case res.Unfinished:
		look.Verdict = compare.Inconclusive
	default:
		look.Verdict = res.Verdict
	}
	if res != nil && len(res.Deltas) > 0 {
		look.Delta = res.Deltas[0].Pct
		if ls := res.Deltas[0].Looks; len(ls) > 0 {
			look.Alpha = ls[len(ls)-1].Alpha // the level of the look just taken
		}
		if res.Verdict == compare.Improved || res.Verdict == compare.Regressed {
			look.P, _ = res.Deltas[0].Tested() // the look's own p, as the plan's looks say it
		}
	}
	p.Looks = append(p.Looks, look)
	stop := err != nil || !res.Unfinished
	if stop {
		p.Decided = fmt.Sprintf("look at pair %d of at most %d: %s", pairs, p.Sequential.MaxPairs, look.Verdict)
		if res != nil && res.Stopped != nil && res.Stopped.Futile {
			p.Decided += futileStop
		}
		r.Decided = p.Decided
	}
	if !r.record(fmt.Sprintf("recording the look at pair %d", pairs)) {
		stop = true
	}
	if c.Progress != nil {
		c.Progress(Event{Index: done, Total: c.total, State: "look", Look: &look, Decided: r.Decided})
	}
	return stop
}

// futileStop ends the reason of a look the futility stop ended, a
// campaign's or a sweep cell's: said where it ends, not only in compare's
// design line, as an A/A newcomer read the bare "inconclusive" at pair 6
// of 14 as a stop without a reason.
const futileStop = " (the pairs left were unlikely to decide: the futility stop)"
