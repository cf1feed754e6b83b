package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/reason"
	recs "github.com/abbench/abbench/internal/records"
)

// gate is one comparison on its way through the censor gate: the runs
// that left evidence, the result its steps fill with reasons, and what the
// campaign step leaves for the statistics to judge.
type gate struct {
	// missing are the run directories (N-ARM) that left no evidence and
	// were censored while loading: the signed plan does not name them again.
	missing map[string]bool
	r       *Result
	runs    []Run
	opts    Options
	arms    []string // in scenario order, those present
	// notRun are the reasons of planned runs that never started, by plan
	// index; deferred those of runs a sequential design may have made
	// unnecessary (after the last run given), which count only when no
	// look decided (stoppedByDesign false).
	notRun map[int][]reason.Reason
	// neverRan are the arms of those runs: an arm without a run for that
	// reason is said by their run-missing, not by an arm-missing that
	// asks whether its CI stage ran.
	neverRan map[string]bool
	// undone is what a campaign stopped early (a run failed for a cause
	// no repeat changes, or abbench was stopped) left undone: its planned
	// runs that never started, and the arms those leave without a run.
	// Where a run's own reason is the first root cause, it is held under
	// it (holdUndone), not listed beside it as a cause of its own.
	undone          []reason.Reason
	deferred        []reason.Reason
	stoppedByDesign bool
	// metricGiven says the options named the metric (else the runs' headline).
	metricGiven bool
	// copies are the runs (by position in runs) that are an earlier
	// run given again (its token): said once, as such, and not counted
	// again as a second run of its plan index.
	copies map[int]bool
}

func (g *gate) add(rs reason.Reason) { g.r.Reasons = append(g.r.Reasons, rs) }

// holdUndone puts what an early stop left undone (gate.undone) under the
// first root cause where that is a run's own (it names its runs: the run
// the campaign stopped at), as its consequences; else beside the others.
func holdUndone(roots, undone []reason.Reason) []reason.Reason {
	if len(undone) == 0 {
		return roots
	}
	if len(roots) == 0 || len(roots[0].Runs) == 0 {
		return reason.Merge(append(roots, undone...))
	}
	roots[0].Consequences = reason.Merge(append(roots[0].Consequences, undone...))
	return roots
}

// check runs every step of the gate, each adding the reasons it finds:
// the runs one by one, the arms given, then what must be one across the
// runs (workload, builds, sources, campaign, machines).
func (g *gate) check() {
	r := g.r
	if len(g.runs) == 0 {
		g.add(reason.New(reason.ArmMissing, "no runs were given"))
		return
	}
	first := g.runs[0].Evidence
	r.Scenario, r.MatchedDigest = first.Scenario, first.MatchedDigest
	r.Baseline = first.Baseline
	if g.opts.Baseline != "" {
		r.Baseline = g.opts.Baseline
	}
	g.modeUnread()
	tokens := map[string]string{}
	present := map[string]bool{}
	g.copies = map[int]bool{}
	for i, run := range g.runs {
		e := run.Evidence
		value := metricOf(e, g.opts.Metric)
		started, secs, hosts, err := timing(run)
		if err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("run %s: when and how long it ran is not reported: %v", run.Path, err))
		}
		r.Runs = append(r.Runs, RunSummary{Path: run.Path, Arm: e.Arm, Token: e.Token, Accepted: e.Accepted, Value: value, Criteria: e.Criteria,
			Started: started, Seconds: max(secs, 0), Hosts: hosts})
		if prev, dup := tokens[e.Token]; dup {
			g.add(reason.New(reason.DuplicateRun, "%s and %s are the same run (token %s): a run counts once", prev, run.Path, e.Token))
			g.copies[i] = true
			continue
		}
		tokens[e.Token] = run.Path
		present[e.Arm] = true
		g.checkRun(run, value)
	}
	g.armsGiven(first.Arms, present)
	g.workloads()
	g.outputLengths()
	g.clocks()
	g.gpuSummary()
	g.serverMetrics()
	g.builds()
	g.sources()
	g.images()
	g.attachedImages()
	g.campaigns()
	g.machines()
	g.r.Machine = g.machineLine()
}

// checkRun holds one run to the gate: its evidence accepted, the matched
// digest of the first run, every rank in its arm's mode, a value of the
// metric.
func (g *gate) checkRun(run Run, value *float64) {
	e := run.Evidence
	if !e.Accepted {
		g.notAccepted(run)
	}
	if e.MatchedDigest != g.r.MatchedDigest {
		g.add(reason.New(reason.ConfigMismatch, "run %s (arm %s) was made with matched digest %s, run %s with %s: the arms did not hold everything else equal%s",
			run.Path, e.Arm, short(e.MatchedDigest), g.runs[0].Path, short(g.r.MatchedDigest), scenarioDiff(run.Dir, g.runs[0].Dir)))
	}
	if !e.Accepted {
		return // the run's own reasons already name each rank's mode, and its value counts for nothing
	}
	for _, f := range e.Ranks {
		for k, v := range f.Mode {
			if want, ok := e.ArmEnv[k]; ok && v != want {
				rs := reason.New(reason.ArmModeMismatch, "%s rank %d logs %s=%s, but arm %s sets %q", f.Role, f.Rank, k, v, e.Arm, want).At(e.Arm, f.Role, f.Rank)
				rs.Runs = []string{run.Path}
				g.add(rs)
			}
		}
	}
	if value == nil {
		g.add(reason.New(reason.ThroughputInvalid, "run %s (arm %s) has no %s%s", run.Path, e.Arm, g.opts.Metric, whyNoMetric(g.opts.Metric)))
	}
}

// whyNoMetric is why an accepted run's record may lack metric, as a
// reason's tail: goodput is left out where not one request met every
// objective (a rate of 0 has no ratio to compare), which says more of the
// arm than "has no goodput" did.
func whyNoMetric(metric string) string {
	if metric != recs.Goodput {
		return ""
	}
	return ": not one of its requests met every objective of the scenario's slo (a goodput of 0 has no ratio to compare; --metric p99_ttft_ms or p99_tpot_ms says how far they missed), or its record has no per-request lists"
}

// notAccepted adds the reasons of a run whose evidence was not accepted,
// root causes first, each naming the run.
func (g *gate) notAccepted(run Run) {
	e := run.Evidence
	for _, rs := range e.RootCausesFirst() {
		rs.Runs = []string{run.Path}
		for i := range rs.Consequences {
			rs.Consequences[i].Runs = []string{run.Path}
		}
		g.add(rs)
	}
	if len(e.Reasons) == 0 {
		g.add(reason.New(reason.RankExited, "the evidence of run %s is not accepted", run.Path))
	}
}

// armsGiven orders the arms present as the scenario lists them (any other
// after), and requires every arm of the scenario, two at least, and the
// baseline.
func (g *gate) armsGiven(scenarioArms []string, present map[string]bool) {
	for _, a := range scenarioArms {
		if present[a] {
			g.arms = append(g.arms, a)
		}
	}
	for a := range present {
		if !slices.Contains(g.arms, a) {
			g.arms = append(g.arms, a)
		}
	}
	var missing []string
	unplanned := false // an arm missing for another reason than a planned run that never started
	for _, a := range scenarioArms {
		if !present[a] {
			missing = append(missing, a)
			unplanned = unplanned || !g.neverRan[a]
		}
	}
	// Arms missing only because their planned runs never started are said
	// by those runs' run-missing, which says why; a comparison still
	// needs two arms.
	said := len(missing) > 0 && !unplanned
	if len(missing) > 0 && !said {
		g.add(reason.New(reason.ArmMissing, "no run of arm %s was given (arms: %s): was its stage run?", strings.Join(missing, ", "), strings.Join(scenarioArms, ", ")))
	}
	if len(present) < 2 {
		rs := reason.New(reason.ArmMissing, "only %d arm(s) given: a comparison needs two", len(present))
		if said {
			g.undone = append(g.undone, rs)
		} else {
			g.add(rs)
		}
	}
	if !present[g.r.Baseline] && len(present) > 0 && !(said && g.neverRan[g.r.Baseline]) {
		g.add(reason.New(reason.ArmMissing, "the baseline arm %s has no run", g.r.Baseline))
	}
}
