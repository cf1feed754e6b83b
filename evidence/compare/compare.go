// Package compare is the censor gate and the statistics of an A/B
// comparison. A delta is computed only when nothing could have faked it:
// every run's evidence accepted, one matched digest, one workload digest
// and algorithm across arms, every rank in its arm's mode, no run given
// twice, at least two arms. Otherwise the comparison is censored, with every
// reason collected, and no delta is given as if it meant something.
package compare

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/montanaflynn/stats"
	"golang.org/x/perf/benchmath"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The verdicts.
const (
	Censored     = "censored"
	Improved     = "improved"
	Regressed    = "regressed"
	Inconclusive = "inconclusive"
)

// Alpha is the significance level of the U test, and Confidence the level
// of the delta's interval.
const (
	Alpha      = 0.05
	Confidence = 0.95
)

// Run is one arm run's evidence and where it came from.
type Run struct {
	Path     string             `json:"path"`
	Dir      string             `json:"-"`
	Evidence *evidence.Evidence `json:"-"` // nil for a run that left none
	// Censor are reasons found while loading the run (see LoadRuns): the
	// gate adds them to the comparison's.
	Censor []reason.Reason `json:"-"`
}

// Options tune a comparison.
type Options struct {
	// Baseline overrides the scenario's baseline arm.
	Baseline string
	// Metric is a throughput record metric; default the scenario's headline
	// metric (output_throughput unless it names another).
	Metric string
	// Threshold is the noise threshold in percent; 0 takes the scenario's.
	Threshold float64
	// Calibration, when set, gives the threshold for the runs per arm.
	Calibration *Calibration
	// SignaturesChecked says every run's bundle signature was verified
	// against allowed signers before the comparison; otherwise the report
	// says the runs are unverified.
	SignaturesChecked bool
}

// Result is a comparison; its JSON is the --format json report
// (docs/evidence.md).
type Result struct {
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
	// DeltaPct and Interval repeat the first treatment's delta, for the
	// common two-arm case.
	DeltaPct *float64     `json:"delta_pct"`
	Interval *[2]float64  `json:"interval"`
	Warnings []string     `json:"warnings"`
	Runs     []RunSummary `json:"runs"`
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
	Arm         string      `json:"arm"`
	Pct         *float64    `json:"delta_pct"`
	Interval    *[2]float64 `json:"interval"`
	P           *float64    `json:"p"`
	Method      string      `json:"method"`
	Threshold   float64     `json:"threshold_pct"`
	ThresholdOf string      `json:"threshold_source"`
	Verdict     string      `json:"verdict"`
	Display     string      `json:"display"` // "+2.41%" or "~"
}

// RunSummary is one input run, for reports.
type RunSummary struct {
	Path     string               `json:"path"`
	Arm      string               `json:"arm"`
	Token    string               `json:"token"`
	Accepted bool                 `json:"accepted"`
	Value    *float64             `json:"value"`
	Criteria []evidence.Criterion `json:"criteria"`
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
	for _, run := range all {
		loadReasons = append(loadReasons, run.Censor...)
		if run.Evidence != nil {
			runs = append(runs, run)
		}
	}
	if opts.Metric == "" {
		opts.Metric = "output_throughput"
		if len(runs) > 0 && runs[0].Evidence.HeadlineMetric != "" {
			opts.Metric = runs[0].Evidence.HeadlineMetric
		}
	}
	r := &Result{Metric: opts.Metric, HigherIsBetter: higherIsBetter(opts.Metric, runs), Reasons: loadReasons, Warnings: []string{}, Arms: []Arm{}, Deltas: []Delta{}}
	if r.Reasons == nil {
		r.Reasons = []reason.Reason{}
	}
	r.Warnings = append(r.Warnings, unverified(runs, opts)...)
	g := gate{r: r, runs: runs, opts: opts, missing: map[string]bool{}}
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
		r.Runs = append(r.Runs, RunSummary{Path: run.Path, Arm: e.Arm, Token: e.Token, Accepted: e.Accepted, Value: value, Criteria: e.Criteria})
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
	g.sources()
	g.campaigns()
}

// sources requires every run that recorded its system's source revision to
// have run the same one (bundles record it when the scenario names a
// repository).
func (g *gate) sources() {
	var ref *bundle.SourceRevision
	refPath := ""
	for _, run := range g.runs {
		prov := provenance(run)
		if prov == nil || prov.Source == nil {
			continue
		}
		if prov.Source.Dirty {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("run %s ran a dirty tree of %s (head %s)", run.Path, prov.Source.Repository, short(prov.Source.Head)))
		}
		if ref == nil {
			ref, refPath = prov.Source, run.Path
			continue
		}
		if prov.Source.Tree != ref.Tree || prov.Source.Dirty != ref.Dirty {
			g.add(reason.New(reason.ConfigMismatch, "run %s ran source tree %s (dirty %v), run %s tree %s (dirty %v): the arms ran different code",
				run.Path, short(prov.Source.Tree), prov.Source.Dirty, refPath, short(ref.Tree), ref.Dirty))
		}
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
		prov := provenance(run)
		if prov == nil || prov.Campaign == nil {
			outside = append(outside, run.Path)
			continue
		}
		c := prov.Campaign
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
		return
	}
	for _, path := range outside {
		g.add(reason.New(reason.RunMissing, "run %s is not a run of campaign plan %s (run %s is): a campaign is compared whole, without runs from elsewhere", path, short(ref.PlanDigest), refPath))
	}
	for _, id := range ref.Runs {
		if !given[rundir.RunIndex(id)] && !g.missing[id] {
			g.add(reason.New(reason.RunMissing, "run %s of the signed campaign plan %s was not given: a campaign is compared whole", id, short(ref.PlanDigest)))
		}
	}
}

// provenance is a bundle run's provenance.json, nil for a run that is no
// bundle or holds none.
func provenance(run Run) *bundle.Prov {
	data, err := os.ReadFile(filepath.Join(run.Dir, bundle.Provenance))
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
		file.Close()
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

func (g *gate) statistics() {
	r := g.r
	arms := map[string]Arm{}
	for _, name := range g.arms {
		a := g.armSample(name)
		arms[name] = a
		r.Arms = append(r.Arms, a)
	}
	base := arms[r.Baseline]
	for _, name := range g.arms {
		if name == r.Baseline {
			continue
		}
		d := g.delta(base, arms[name])
		r.Deltas = append(r.Deltas, d)
	}
	r.Verdict = Improved
	for _, d := range r.Deltas {
		switch {
		case d.Verdict == Regressed:
			r.Verdict = Regressed
		case d.Verdict == Inconclusive && r.Verdict != Regressed:
			r.Verdict = Inconclusive
		}
	}
	if len(r.Deltas) > 0 {
		r.DeltaPct, r.Interval = r.Deltas[0].Pct, r.Deltas[0].Interval
	}
}

// delta compares one treatment with the baseline. With enough runs per arm
// to reach significance, the Mann-Whitney U test decides (as benchstat
// does) and a bootstrap interval bounds the delta of medians; otherwise
// the delta is conclusive only beyond the noise threshold.
func (g *gate) delta(base, treat Arm) Delta {
	d := Delta{Arm: treat.Name, Verdict: Inconclusive, Display: "~"}
	pct := (treat.Median/base.Median - 1) * 100
	if base.Median == 0 || math.IsNaN(pct) {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("baseline %s has a median of 0: no delta", base.Name))
		return d
	}
	d.Pct = &pct
	d.Threshold, d.ThresholdOf = g.threshold(min(base.N, treat.N))
	better := pct > 0 == g.r.HigherIsBetter
	if base.N >= 2 && treat.N >= 2 {
		thr := benchmath.DefaultThresholds
		c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(base.Values), &thr), benchmath.NewSample(slices.Clone(treat.Values), &thr))
		p := c.P
		d.P = &p
		lo, hi := bootstrapInterval(base.Values, treat.Values)
		d.Interval = &[2]float64{lo, hi}
		for _, w := range c.Warnings {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: n=%d+%d per arm: %v", treat.Name, base.Name, base.N, treat.N, w))
		}
		if len(c.Warnings) == 0 || p <= c.Alpha {
			d.Method = "u-test"
			if p <= c.Alpha {
				d.Display = fmt.Sprintf("%+.2f%%", pct)
				d.Verdict = map[bool]string{true: Improved, false: Regressed}[better]
			}
			return d
		}
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: too few runs for the U test; the delta is judged against the %.2f%% noise threshold (%s)", treat.Name, base.Name, d.Threshold, d.ThresholdOf))
	} else {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: n=%d+%d: no interval with one run per arm; the delta is judged against the %.2f%% noise threshold (%s)", treat.Name, base.Name, base.N, treat.N, d.Threshold, d.ThresholdOf))
	}
	d.Method = "threshold"
	if math.Abs(pct) > d.Threshold {
		d.Display = fmt.Sprintf("%+.2f%%", pct)
		d.Verdict = map[bool]string{true: Improved, false: Regressed}[better]
	}
	return d
}

func (g *gate) threshold(n int) (float64, string) {
	if c := g.opts.Calibration; c != nil {
		if mde, ok := c.MDE(n); ok {
			return mde, fmt.Sprintf("calibrated on %d A/A runs of arm %s: minimum detectable effect for %d run(s) per arm", c.N, c.Arm, n)
		}
	}
	if g.opts.Threshold > 0 {
		return g.opts.Threshold, "--threshold"
	}
	if len(g.runs) > 0 && g.runs[0].Evidence.NoiseThreshold > 0 {
		return g.runs[0].Evidence.NoiseThreshold, "scenario noise_threshold"
	}
	return 3, "default"
}

// bootstrapInterval is a 95% percentile bootstrap interval of the percent
// delta of medians, with a fixed seed so a report is reproducible.
func bootstrapInterval(base, treat []float64) (float64, float64) {
	rng := rand.New(rand.NewPCG(0xabbe, uint64(len(base)*1000+len(treat))))
	const resamples = 4000
	deltas := make([]float64, 0, resamples)
	bs, ts := make([]float64, len(base)), make([]float64, len(treat))
	for range resamples {
		for i := range bs {
			bs[i] = base[rng.IntN(len(base))]
		}
		for i := range ts {
			ts[i] = treat[rng.IntN(len(treat))]
		}
		mb, _ := stats.Median(bs)
		mt, _ := stats.Median(ts)
		if mb != 0 {
			deltas = append(deltas, (mt/mb-1)*100)
		}
	}
	slices.SortFunc(deltas, cmp.Compare[float64])
	lo, _ := stats.Percentile(deltas, 2.5)
	hi, _ := stats.Percentile(deltas, 97.5)
	return lo, hi
}
