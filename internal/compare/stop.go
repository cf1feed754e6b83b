package compare

import (
	"fmt"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/rundir"
)

// Stop is where a sequential campaign stopped by its own rule.
type Stop struct {
	// Pairs is the look that decided; MaxPairs the design's last.
	Pairs    int `json:"pairs"`
	MaxPairs int `json:"max_pairs"`
	// NotNeeded counts the planned runs after it, which never ran.
	NotNeeded int `json:"runs_not_needed"`
	// Futile says the look stopped undecided: the pairs left were
	// unlikely to decide (the design's futility stop).
	Futile bool `json:"futile,omitempty"`
	// Rule is the signed rule the look was judged by (nil for plans made
	// before it was recorded: then by this comparison's options).
	Rule *rundir.StopRule `json:"rule,omitempty"`
}

// String says it for a person.
func (s *Stop) String() string {
	by := "by this comparison's options: its plan predates a signed rule"
	if s.Rule != nil {
		by = "by the rule signed with its plan"
	}
	if s.Futile {
		return fmt.Sprintf("the sequential design stopped undecided at its look at pair %d of at most %d: the pairs left were unlikely to decide (its futility stop, judged %s)", s.Pairs, s.MaxPairs, by)
	}
	return fmt.Sprintf("the sequential design stopped at its look at pair %d of at most %d, decided %s", s.Pairs, s.MaxPairs, by)
}

// stoppedByRule says whether the runs after the given ones were left out
// by a decided look: judged with the campaign's signed stop rule, which a
// later compare's options (another metric, another smallest effect) cannot
// change. The runs are what decides, never plan.json's word.
func (g *gate) stoppedByRule(all []Run) (*Stop, bool) {
	var ref *rundir.CampaignRef
	for _, run := range g.runs {
		if run.Campaign != nil && run.Campaign.Sequential != nil {
			ref = run.Campaign
			break
		}
	}
	if ref == nil {
		return nil, false
	}
	seq := ref.Sequential
	if rule := seq.Rule; rule != nil && !g.opts.judgingStop && !g.judgedBy(rule) {
		opts := Options{Baseline: rule.Baseline, Metric: rule.Metric, Effect: rule.Effect, Method: rule.Method, Metrics: rule.Metrics, Alpha: seq.Alpha, judgingStop: true}
		judge := Compare(all, opts)
		return judge.Stopped, judge.Stopped != nil
	}
	if !g.stoppedByDesign {
		return nil, false
	}
	pairs, last := 0, 0
	for _, d := range g.r.Deltas {
		pairs = max(pairs, d.N)
	}
	for _, run := range g.runs {
		if run.Campaign != nil {
			last = max(last, run.Campaign.Index)
		}
	}
	notNeeded := 0 // the plan's runs after the last one made (of a sweep, of its cell)
	for _, id := range ref.Runs {
		if rundir.RunIndex(id) > last {
			notNeeded++
		}
	}
	futile := false // a look ends undecided only by the futility stop
	for _, d := range g.r.Deltas {
		futile = futile || d.Verdict != Improved && d.Verdict != Regressed && d.Verdict != NoChange
	}
	return &Stop{Pairs: pairs, MaxPairs: seq.MaxPairs, NotNeeded: notNeeded, Futile: futile, Rule: seq.Rule}, true
}

// judgedBy says whether this comparison's options are the stop rule's, so
// its own decisions judged the stop.
func (g *gate) judgedBy(rule *rundir.StopRule) bool {
	method := func(m string) string {
		if m == "" {
			return decide.Auto
		}
		return m
	}
	return rule.Baseline == g.opts.Baseline && (rule.Metric == g.opts.Metric || rule.Metric == "" && !g.metricGiven) &&
		rule.Effect == g.opts.Effect && method(rule.Method) == method(g.opts.Method) && g.opts.Metrics <= max(rule.Metrics, 1)
}
