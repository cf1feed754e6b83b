// Package compare is the censor gate and the statistics of an A/B
// comparison. A delta is computed only when nothing could have faked it:
// every run's evidence accepted, one matched digest, one workload digest
// and algorithm across arms, every rank in its arm's mode, no run given
// twice, at least two arms. Otherwise the comparison is censored, with every
// reason collected, and no delta is given as if it meant something.
package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/montanaflynn/stats"

	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The verdicts (decide has every one but Censored).
const (
	Censored     = "censored"
	Improved     = decide.Improved
	Regressed    = decide.Regressed
	NoChange     = decide.NoChange
	Inconclusive = decide.Inconclusive
	Descriptive  = decide.Descriptive
)

// ResultSchema names the comparison's JSON format (docs/schema).
const ResultSchema = "abbench-comparison-v1"

// Alpha is the default level of the tests.
const Alpha = 0.05

// Run is one arm run's evidence and where it came from.
type Run struct {
	Path     string             `json:"path"`
	Dir      string             `json:"-"`
	Evidence *evidence.Evidence `json:"-"` // nil for a run that left none
	// Censor are reasons found while loading the run (see LoadRuns): the
	// gate adds them to the comparison's.
	Censor []reason.Reason `json:"-"`
	// Campaign is what the run's signed provenance says of its campaign
	// (nil outside one): its index and the plan's design pair the runs.
	Campaign *rundir.CampaignRef `json:"-"`
	// Machines are the facts of the hosts the run ran on, from its
	// provenance (nil when it recorded none).
	Machines []machine.Facts `json:"-"`
	// NotRun is the plan index of a planned run that never started (0 for
	// others): after a sequential campaign's decided look that is expected.
	NotRun int `json:"-"`
	// prov is the run's provenance, read once by LoadRuns (several checks
	// consult it; with thousands of runs, parsing it each time showed).
	prov *bundle.Prov
}

// Options tune a comparison.
type Options struct {
	// Baseline overrides the scenario's baseline arm.
	Baseline string
	// Metric is a throughput record metric; default the scenario's headline
	// metric (output_throughput unless it names another).
	Metric string
	// Effect is the smallest effect of interest in percent; 0 takes the
	// scenario's noise_threshold (3 when it has none).
	Effect float64
	// Alpha is the tests' level (0: Alpha).
	Alpha float64
	// Method is one of decide.Methods ("": auto).
	Method string
	// Calibration, when set, says how many pairs the noise it measured
	// needs; the report warns when the runs are fewer.
	Calibration *Calibration
	// PlotURL, when set, is where the plot will be (a CI artifact): the
	// Markdown report links it.
	PlotURL string
	// FailOn is "" or --fail-on's conditions (see ParseFailOn): when the
	// verdict fails the comparison (exit 5; the JUnit comparison case
	// fails too). A gate that cannot decide is said in the warnings.
	FailOn string
	// Stored are the runs of a stored baseline (see Stored), already held
	// to CheckStored; StoredPath is where they came from.
	Stored     []Run
	StoredPath string
	// SignaturesChecked says every run's bundle signature was verified
	// against allowed signers before the comparison; otherwise the report
	// says the runs are unverified.
	SignaturesChecked bool
	// judgingStop marks the comparison that judges a sequential
	// campaign's stop by its signed rule (see stoppedByRule).
	judgingStop bool
}

// Check refuses options no comparison can use, with a *field.Error
// naming the field.
func (o Options) Check() error {
	switch {
	case o.Effect < 0:
		return &field.Error{Field: "Effect", Value: fmt.Sprint(o.Effect), Problem: "must be positive"}
	case o.Alpha < 0 || o.Alpha >= 0.5:
		return &field.Error{Field: "Alpha", Value: fmt.Sprint(o.Alpha), Problem: "choose a level between 0 and 0.5, such as 0.05"}
	case o.Method != "" && !slices.Contains(decide.Methods, o.Method):
		return &field.Error{Field: "Method", Value: fmt.Sprintf("%q", o.Method), Problem: "choose " + strings.Join(decide.Methods, ", ")}
	}
	_, err := ParseFailOn(o.FailOn)
	return err
}

// Result is a comparison; its JSON is the --format json report
// (docs/evidence.md).
type Result struct {
	Schema         string          `json:"schema"` // ResultSchema
	Verdict        string          `json:"verdict"`
	Reasons        []reason.Reason `json:"reasons"`
	Metric         string          `json:"metric"`
	HigherIsBetter bool            `json:"higher_is_better"`
	Baseline       string          `json:"baseline"`
	Scenario       string          `json:"scenario"`
	MatchedDigest  string          `json:"matched_digest"`
	Workload       *digest.Digest  `json:"workload_digest"`
	Arms           []Arm           `json:"arms"`
	Deltas         []Delta         `json:"deltas"`
	// Design is how the runs were made, as the statistics read it.
	Design   Design       `json:"design"`
	Warnings []string     `json:"warnings"`
	Runs     []RunSummary `json:"runs"`
	// PlotURL is Options.PlotURL.
	PlotURL string `json:"plot_url,omitempty"`
	// Builds are the arms' builds, when the arms are builds.
	Builds []rundir.BuildFact `json:"builds,omitempty"`
	// Stored is the comparison with a stored baseline, when one was given.
	Stored *Stored `json:"stored,omitempty"`
	// Stopped, when set, says a sequential campaign stopped at a look its
	// own signed rule decided: the planned runs after it were not needed.
	Stopped *Stop `json:"stopped,omitempty"`
	// GateUndecided, when set, says --fail-on regression cannot gate this
	// comparison, since no test decided it (also among the warnings).
	GateUndecided string `json:"-"`
	// Unfinished is true when the only reason to censor is that a
	// sequential campaign's runs end before a look decided: a campaign in
	// progress looks so.
	Unfinished bool `json:"-"`
}

// Arm is one arm's sample of the metric.
type Arm struct {
	Name   string            `json:"name"`
	Env    map[string]string `json:"env"`
	N      int               `json:"n"`
	Values []float64         `json:"values"`
	Median float64           `json:"median"`
	Mean   float64           `json:"mean"`
	CV     float64           `json:"cv"` // coefficient of variation, a fraction
}

// Delta is one treatment against the baseline.
type Delta struct {
	Arm string `json:"arm"`
	// Pct is the change in percent (of the paired log ratios, or of the
	// arms' geometric means); nil when none can be computed.
	Pct      *float64    `json:"delta_pct"`
	Interval *[2]float64 `json:"interval"` // at 1-Alpha
	// P is the test's p; reports print it only where it decided.
	P      *float64 `json:"p"`
	Alpha  float64  `json:"alpha"`
	Method string   `json:"method"`
	// N is the number of pairs, or the smaller arm's runs when unpaired.
	N        int     `json:"n"`
	Paired   bool    `json:"paired"`
	Effect   float64 `json:"effect_pct"`
	EffectOf string  `json:"effect_source"`
	Verdict  string  `json:"verdict"`
	Why      string  `json:"why"`
	// Looks are a sequential campaign's looks, recomputed from the runs.
	Looks   []rundir.Look `json:"looks,omitempty"`
	Display string        `json:"display"` // "+2.41%", "~" when not decided
}

// RunSummary is one input run, for reports.
type RunSummary struct {
	Path     string               `json:"path"`
	Arm      string               `json:"arm"`
	Token    string               `json:"token"`
	Accepted bool                 `json:"accepted"`
	Value    *float64             `json:"value"`
	Criteria []evidence.Criterion `json:"criteria"`
	// Started, Seconds and Hosts are when, how long and where the run ran,
	// from its signed provenance, else its status.json (zero when neither).
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Hosts   []string  `json:"hosts"`
}

// timing is when, how long and where a run ran.
func timing(run Run) (time.Time, float64, []string) {
	if prov := provenance(run); prov != nil {
		return prov.Started, prov.Ended.Sub(prov.Started).Seconds(), prov.Hosts
	}
	if st, err := rundir.ReadStatus(run.Dir); err == nil {
		return st.Started, st.Ended.Sub(st.Started).Seconds(), nil
	}
	return time.Time{}, 0, nil
}

// higherIsBetter says which way metric improves: as the runs' scenario
// declares it for its headline metric, else by the metric's name.
func higherIsBetter(metric string, runs []Run) bool {
	for _, run := range runs {
		if e := run.Evidence; e.HigherIsBetter != nil && e.Headline() == metric {
			return *e.HigherIsBetter
		}
	}
	return scenarios.MetricHigherIsBetter(metric)
}

// Compare applies the gate, then the statistics.
func Compare(all []Run, opts Options) *Result {
	var runs []Run // those that left evidence
	var loadReasons []reason.Reason
	notRun := map[int][]reason.Reason{}
	for _, run := range all {
		if run.NotRun > 0 {
			notRun[run.NotRun] = run.Censor
		} else {
			loadReasons = append(loadReasons, run.Censor...)
		}
		if run.Evidence != nil {
			runs = append(runs, run)
		}
	}
	metricGiven := opts.Metric != ""
	if !metricGiven {
		opts.Metric = "output_throughput"
		if len(runs) > 0 && runs[0].Evidence.HeadlineMetric != "" {
			opts.Metric = runs[0].Evidence.HeadlineMetric
		}
	}
	r := &Result{Schema: ResultSchema, PlotURL: opts.PlotURL, Metric: opts.Metric, HigherIsBetter: higherIsBetter(opts.Metric, runs), Reasons: loadReasons, Warnings: []string{}, Arms: []Arm{}, Deltas: []Delta{}}
	if r.Reasons == nil {
		r.Reasons = []reason.Reason{}
	}
	r.Warnings = append(r.Warnings, unverified(runs, opts)...)
	g := gate{r: r, runs: runs, opts: opts, metricGiven: metricGiven, missing: map[string]bool{}, notRun: notRun}
	for _, run := range all {
		if run.Evidence == nil {
			g.missing[filepath.Base(run.Path)] = true // already said, by LoadRuns
		}
	}
	g.check()
	if len(r.Reasons) > 0 {
		r.Verdict = Censored
		g.rawArms()
		return r
	}
	g.statistics()
	if len(r.Reasons) > 0 { // the stored baseline ran on other hardware
		r.Verdict, r.Deltas = Censored, []Delta{}
		return r
	}
	if len(g.deferred) > 0 {
		if stop, ok := g.stoppedByRule(all); ok {
			r.Stopped = stop
		} else {
			// The runs end before the design's last look and no look
			// decided: the campaign was stopped, not finished.
			r.Reasons = g.deferred
			r.Verdict, r.Deltas, r.Unfinished = Censored, []Delta{}, true
		}
	}
	if w := r.gateWarning(opts.FailOn); w != "" {
		r.Warnings = append(r.Warnings, w)
		r.GateUndecided = w
	}
	return r
}

// unverified says, as warnings, what nobody checked: runs that are no
// bundle (their evidence.json could have been edited), and, without
// allowed signers, who made the runs (an unsigned or unchecked bundle's
// files are verified, but anyone could have written them).
func unverified(runs []Run, opts Options) []string {
	var notBundles, unsigned, unchecked int
	for _, run := range runs {
		switch {
		case !run.IsBundle():
			notBundles++
		case !exists(filepath.Join(run.Dir, bundle.SignatureFile)):
			unsigned++
		case !opts.SignaturesChecked:
			unchecked++
		}
	}
	var w []string
	if notBundles > 0 {
		w = append(w, fmt.Sprintf("%d run(s) are not bundles: nothing shows their evidence.json is what the run wrote", notBundles))
	}
	if unsigned > 0 {
		w = append(w, fmt.Sprintf("%d run(s) are unsigned: their bundles verify, but nothing says who made them (sign with --sign-key)", unsigned))
	}
	if unchecked > 0 {
		w = append(w, fmt.Sprintf("%d run(s) are signed but their signatures were not checked (give --allowed-signers)", unchecked))
	}
	return w
}

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
	notRun          map[int][]reason.Reason
	deferred        []reason.Reason
	stoppedByDesign bool
	// metricGiven says the options named the metric (else the runs' headline).
	metricGiven bool
}

func (g *gate) add(rs reason.Reason) { g.r.Reasons = append(g.r.Reasons, rs) }

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
	tokens := map[string]string{}
	present := map[string]bool{}
	for _, run := range g.runs {
		e := run.Evidence
		value := metricOf(e, g.opts.Metric)
		started, secs, hosts := timing(run)
		r.Runs = append(r.Runs, RunSummary{Path: run.Path, Arm: e.Arm, Token: e.Token, Accepted: e.Accepted, Value: value, Criteria: e.Criteria,
			Started: started, Seconds: max(secs, 0), Hosts: hosts})
		if prev, dup := tokens[e.Token]; dup {
			g.add(reason.New(reason.DuplicateRun, "%s and %s are the same run (token %s): a run counts once", prev, run.Path, e.Token))
			continue
		}
		tokens[e.Token] = run.Path
		present[e.Arm] = true
		if !e.Accepted {
			for _, rs := range reason.Group(e.Reasons) {
				rs.Detail = fmt.Sprintf("%s (run %s)", rs.Detail, run.Path)
				for i := range rs.Consequences {
					rs.Consequences[i].Detail = fmt.Sprintf("%s (run %s)", rs.Consequences[i].Detail, run.Path)
				}
				g.add(rs)
			}
			if len(e.Reasons) == 0 {
				g.add(reason.New(reason.RankExited, "the evidence of run %s is not accepted", run.Path))
			}
		}
		if e.MatchedDigest != r.MatchedDigest {
			g.add(reason.New(reason.ConfigMismatch, "run %s (arm %s) was made with matched digest %s, run %s with %s: the arms did not hold everything else equal",
				run.Path, e.Arm, short(e.MatchedDigest), g.runs[0].Path, short(r.MatchedDigest)))
		}
		for _, f := range e.Ranks {
			if !e.Accepted {
				break // the run's own reasons already name each rank's mode
			}
			for k, v := range f.Mode {
				if want, ok := e.ArmEnv[k]; ok && v != want {
					g.add(reason.New(reason.ArmModeMismatch, "%s rank %d ran %s=%s, but arm %s declares %q (run %s)", f.Role, f.Rank, k, v, e.Arm, want, run.Path).At(e.Arm, f.Role, f.Rank))
				}
			}
		}
		if value == nil && e.Accepted {
			g.add(reason.New(reason.ThroughputInvalid, "run %s (arm %s) has no %s", run.Path, e.Arm, g.opts.Metric))
		}
	}
	for _, a := range first.Arms {
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
	for _, a := range first.Arms {
		if !present[a] {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		g.add(reason.New(reason.ArmMissing, "no run of arm %s was given (arms: %s): was its stage run?", strings.Join(missing, ", "), strings.Join(first.Arms, ", ")))
	}
	if len(present) < 2 {
		g.add(reason.New(reason.ArmMissing, "only %d arm(s) given: a comparison needs two", len(present)))
	}
	if !present[r.Baseline] && len(present) > 0 {
		g.add(reason.New(reason.ArmMissing, "the baseline arm %s has no run", r.Baseline))
	}
	g.workloads()
	g.builds()
	g.sources()
	g.campaigns()
	g.machines()
}

// machines requires one hardware class (CPU model, GPU models, host count)
// across the runs that recorded their machines, and warns on softer
// differences (drivers, clocks, kernel, governor, memory, image).
func (g *gate) machines() {
	var ref *Run
	softSeen := map[string]bool{}
	for i := range g.runs {
		run := &g.runs[i]
		if len(run.Machines) == 0 {
			continue
		}
		softSeen[machine.Soft(run.Machines)] = true
		if ref == nil {
			ref = run
			continue
		}
		if a, b := machine.Class(ref.Machines), machine.Class(run.Machines); a != b || len(ref.Machines) != len(run.Machines) {
			rs := reason.New(reason.MachineMismatch, "run %s ran on %d host(s) [%s], run %s on %d [%s]: different hardware measures more than the arm",
				run.Path, len(run.Machines), b, ref.Path, len(ref.Machines), a)
			rs.Arm = run.Evidence.Arm
			g.add(rs)
		}
	}
	if len(softSeen) > 1 {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("the runs' machines differ in softer facts (drivers, clocks, kernel, governor, memory or image): %s", strings.Join(slices.Sorted(maps.Keys(softSeen)), "; ")))
	}
}

// sources requires every run that recorded its system's source revision to
// have run the same one (bundles record it when the scenario names a
// repository).
func (g *gate) sources() {
	refs := map[string]*bundle.SourceRevision{}
	refPaths := map[string]string{}
	for _, run := range g.runs {
		// Arms that are builds may run different code (the builds are
		// held by their hashes): their sources are held within an arm.
		key := ""
		if len(g.r.Builds) > 0 {
			key = run.Evidence.Arm
		}
		ref, refPath := refs[key], refPaths[key]
		prov := provenance(run)
		if prov == nil || prov.Source == nil {
			continue
		}
		if prov.Source.Dirty {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("run %s ran a dirty tree of %s (head %s)", run.Path, prov.Source.Repository, short(prov.Source.Head)))
		}
		if ref == nil {
			refs[key], refPaths[key] = prov.Source, run.Path
			continue
		}
		if prov.Source.Tree != ref.Tree || prov.Source.Dirty != ref.Dirty {
			g.add(reason.New(reason.ConfigMismatch, "run %s ran source tree %s (dirty %v), run %s tree %s (dirty %v): the arms ran different code",
				run.Path, short(prov.Source.Tree), prov.Source.Dirty, refPath, short(ref.Tree), ref.Dirty))
		}
	}
}

// builds holds an A/B of builds to one build per arm, across its runs,
// and names the arms' builds in the result.
func (g *gate) builds() {
	byArm := map[string]rundir.BuildFact{}
	from := map[string]string{}
	for _, run := range g.runs {
		e := run.Evidence
		if e.Build == nil {
			continue
		}
		if prev, ok := byArm[e.Arm]; ok {
			if prev.SHA256 != e.Build.SHA256 {
				g.add(reason.New(reason.BuildMismatch, "arm %s ran build sha256 %.12s in run %s but %.12s in run %s: an arm's runs must all run its one build",
					e.Arm, e.Build.SHA256, run.Path, prev.SHA256, from[e.Arm]))
			}
			continue
		}
		byArm[e.Arm], from[e.Arm] = *e.Build, run.Path
	}
	for _, arm := range slices.Sorted(maps.Keys(byArm)) {
		g.r.Builds = append(g.r.Builds, byArm[arm])
	}
}

// campaigns holds runs against the campaign plan their signed provenance
// records: runs of a campaign are compared whole (every run of the plan,
// none from elsewhere), whatever plan.json says now.
func (g *gate) campaigns() {
	var ref *rundir.CampaignRef
	refPath := ""
	given := map[int]bool{}
	var outside []string
	for _, run := range g.runs {
		c := run.Campaign
		if c == nil {
			outside = append(outside, run.Path)
			continue
		}
		if ref == nil {
			ref, refPath = c, run.Path
		} else if c.PlanDigest != ref.PlanDigest {
			g.add(reason.New(reason.RunMissing, "run %s belongs to campaign plan %s, run %s to plan %s: runs of different campaigns are not one comparison",
				run.Path, short(c.PlanDigest), refPath, short(ref.PlanDigest)))
			continue
		}
		given[c.Index] = true
	}
	if ref == nil {
		for _, idx := range slices.Sorted(maps.Keys(g.notRun)) {
			g.r.Reasons = append(g.r.Reasons, g.notRun[idx]...)
		}
		return
	}
	for _, path := range outside {
		g.add(reason.New(reason.RunMissing, "run %s is not a run of campaign plan %s (run %s is): a campaign is compared whole", path, short(ref.PlanDigest), refPath))
	}
	last := 0
	for idx := range given {
		last = max(last, idx)
	}
	// After a sequential campaign's last given block, runs may be missing
	// because a look decided: whether one did, the statistics say.
	afterStop := func(idx int) bool { return ref.Sequential != nil && ref.Block(idx) > ref.Block(last) }
	for _, idx := range slices.Sorted(maps.Keys(g.notRun)) {
		rs := g.notRun[idx]
		if afterStop(idx) {
			g.deferred = append(g.deferred, rs...)
		} else {
			g.r.Reasons = append(g.r.Reasons, rs...)
		}
	}
	for _, id := range ref.Runs {
		idx := rundir.RunIndex(id)
		if given[idx] || g.missing[id] {
			continue
		}
		rs := reason.New(reason.RunMissing, "run %s of the signed campaign plan %s was not given: a campaign is compared whole", id, short(ref.PlanDigest))
		if afterStop(idx) {
			g.deferred = append(g.deferred, rs)
		} else {
			g.add(rs)
		}
	}
	if len(g.deferred) > 0 {
		g.deferred = append([]reason.Reason{reason.New(reason.RunMissing,
			"the sequential campaign ends after pair %d of at most %d, but no look decided: it was stopped, not finished (the runs after it follow)",
			ref.Block(last)+1-ref.Warmup, ref.Sequential.MaxPairs)}, g.deferred...)
	}
}

// Provenance is a bundle run's provenance.json, nil for a run that is no
// bundle or holds none: as LoadRuns read it, else read now.
func (r Run) Provenance() *bundle.Prov { return provenance(r) }

func provenance(run Run) *bundle.Prov {
	if run.prov != nil {
		return run.prov
	}
	return readProvenance(run.Dir)
}

func readProvenance(dir string) *bundle.Prov {
	data, err := os.ReadFile(filepath.Join(dir, bundle.Provenance))
	if err != nil {
		return nil
	}
	var prov bundle.Prov
	if json.Unmarshal(data, &prov) != nil {
		return nil
	}
	return &prov
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func metricOf(e *evidence.Evidence, metric string) *float64 {
	if e.Throughput == nil {
		return nil
	}
	v, ok := e.Throughput.Metrics[metric]
	if !ok {
		return nil
	}
	return &v
}

// workloads requires one workload digest, of one pinned algorithm, across
// every run, and explains a difference with the per-prompt records.
func (g *gate) workloads() {
	var ref *Run
	for i := range g.runs {
		run := &g.runs[i]
		w := run.Evidence.Workload
		if !run.Evidence.Accepted && (w == nil || w.Count == 0) {
			continue // a run stopped before serving: its own reasons say why
		}
		if w == nil {
			if hasActivation(run.Evidence) {
				g.add(reason.New(reason.DigestMissing, "run %s (arm %s) has no agreed workload digest", run.Path, run.Evidence.Arm))
			}
			continue
		}
		if !w.Algorithm.Valid() {
			g.add(reason.New(reason.DigestAlgorithm, "run %s uses unknown digest algorithm %q", run.Path, w.Algorithm))
			continue
		}
		if ref == nil {
			ref = run
			g.r.Workload = w
			continue
		}
		rw := ref.Evidence.Workload
		switch {
		case w.Algorithm != rw.Algorithm:
			g.add(reason.New(reason.DigestAlgorithm, "run %s hashed its workload with %s, run %s with %s: digests of different algorithms are never compared",
				run.Path, w.Algorithm, ref.Path, rw.Algorithm))
		case *w != *rw:
			code := reason.DigestArmMismatch
			if run.Evidence.Arm == ref.Evidence.Arm {
				code = reason.DigestRankDisagreement
			}
			g.add(reason.New(code, "arm %s (run %s) served workload %s:%d:%s, arm %s (run %s) %s:%d:%s; %s",
				run.Evidence.Arm, run.Path, w.Algorithm, w.Count, short(w.Hex), ref.Evidence.Arm, ref.Path, rw.Algorithm, rw.Count, short(rw.Hex), explain(ref, run)))
		}
	}
}

func hasActivation(e *evidence.Evidence) bool {
	for _, f := range e.Ranks {
		if f.Activation != nil {
			return true
		}
	}
	for _, c := range e.Criteria {
		if c.Kind == "digest" {
			return true
		}
	}
	return false
}

// explain compares the runs' per-prompt records, when both kept them.
func explain(a, b *Run) string {
	ra, pa := records(a)
	rb, pb := records(b)
	if ra == nil || rb == nil {
		return "no per-prompt records to explain the difference (name evidence.activation.records in the scenario)"
	}
	e := digest.Explain(ra, rb)
	return fmt.Sprintf("%s (A = %s, B = %s)", e, pa, pb)
}

func records(run *Run) ([]digest.Record, string) {
	for _, f := range run.Evidence.Ranks {
		if f.ActivationRecords == "" {
			continue
		}
		path := filepath.Join(run.Dir, f.ActivationRecords)
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		d, recs, err := digest.ReadRecords(file, path)
		readonly.Close(file)
		if err != nil || run.Evidence.Workload == nil || d != *run.Evidence.Workload {
			continue // records that do not reproduce the agreed digest explain nothing
		}
		return recs, fmt.Sprintf("%s %s rank %d", run.Evidence.Arm, f.Role, f.Rank)
	}
	return nil, ""
}

// rawArms fills the arms' raw values of a censored comparison, marked not comparable by the verdict.
func (g *gate) rawArms() {
	for _, name := range g.arms {
		g.r.Arms = append(g.r.Arms, g.armSample(name))
	}
}

func (g *gate) armSample(name string) Arm {
	a := Arm{Name: name, Values: []float64{}}
	for _, run := range g.runs {
		if run.Evidence.Arm != name {
			continue
		}
		a.Env = run.Evidence.ArmEnv
		if !counted(run) {
			continue // a warm-up run
		}
		if v := metricOf(run.Evidence, g.opts.Metric); v != nil {
			a.Values = append(a.Values, *v)
		}
	}
	a.N = len(a.Values)
	if a.N > 0 {
		a.Median, _ = stats.Median(a.Values)
		a.Mean, _ = stats.Mean(a.Values)
		if sd, err := stats.StandardDeviationSample(a.Values); err == nil && a.Mean != 0 && a.N > 1 {
			a.CV = sd / a.Mean
		}
	}
	return a
}
