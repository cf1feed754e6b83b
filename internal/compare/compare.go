// Package compare is the censor gate and the statistics of an A/B
// comparison. A delta is computed only when nothing could have faked it:
// every run's evidence accepted, one matched digest, one workload digest
// and algorithm across arms, every rank in its arm's mode, no run given
// twice, at least two arms. Otherwise the comparison is censored, with every
// reason collected, and no delta is given as if it meant something.
package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
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
	// NotRunArm is its arm.
	NotRun    int    `json:"-"`
	NotRunArm string `json:"-"`
	// Cell is a sweep's run's cell as its campaign's plan.json names it,
	// for a run that left no evidence to say it (CellOf).
	Cell string `json:"-"`
	// prov is the run's provenance, read once by LoadRuns (several checks
	// consult it; with thousands of runs, parsing it each time showed).
	prov *bundle.Provenance
	// bundle is what LoadRuns found of the run's bundle.
	bundle bundleState
	// checked is LoadRuns' verification of the run's bundle, which
	// VerifyRuns reports rather than verifying the bundle again.
	checked checked
}

// checked is how loading verified a run's bundle: with which options
// (the signature checked when they name allowed signers) and why it
// failed (nil when it verified, or the run is no bundle).
type checked struct {
	with bundle.VerifyOptions
	err  error
	done bool // false: the run was not loaded by LoadRuns
}

// Options tune a comparison.
type Options struct {
	// Baseline overrides the scenario's baseline arm.
	Baseline string
	// Metric is a throughput record metric; default the scenario's headline
	// metric (output_throughput unless it names another).
	Metric string
	// Effect is the smallest effect of interest in percent; 0 takes
	// decide.DefaultRule's.
	Effect float64
	// Alpha is the tests' level (0: decide.DefaultRule's).
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
	// Metrics is the number of metrics compared together as one family
	// (CompareMetrics sets it): a sequential design holds each treatment
	// of each to its share of alpha at every look, as its campaign's
	// looks did (the signed stop rule's Metrics).
	Metrics int
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

// timing is when, how long and where a run ran: from its signed
// provenance, else its status.json (zero when neither). A status.json
// that is there but cannot be read is the error, not a missing one.
func timing(run Run) (time.Time, float64, []string, error) {
	if prov := provenance(run); prov != nil {
		return prov.Started, prov.Ended.Sub(prov.Started).Seconds(), prov.Hosts, nil
	}
	st, err := rundir.ReadStatus(run.Dir)
	switch {
	case err == nil:
		return st.Started, st.Ended.Sub(st.Started).Seconds(), nil, nil
	case errors.Is(err, fs.ErrNotExist):
		return time.Time{}, 0, nil, nil
	}
	return time.Time{}, 0, nil, err
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
	neverRan := map[string]bool{}
	for _, run := range all {
		if run.NotRun > 0 {
			notRun[run.NotRun] = run.Censor
			neverRan[run.NotRunArm] = true
		} else {
			loadReasons = append(loadReasons, run.Censor...)
		}
		if run.Evidence != nil {
			runs = append(runs, run)
		}
	}
	metricGiven := opts.Metric != ""
	if !metricGiven {
		opts.Metric = scenarios.DefaultMetric
		if len(runs) > 0 && runs[0].Evidence.HeadlineMetric != "" {
			opts.Metric = runs[0].Evidence.HeadlineMetric
		}
	}
	r := &Result{Schema: ResultSchema, PlotURL: opts.PlotURL, Metric: opts.Metric, Unit: MetricUnit(opts.Metric), HigherIsBetter: higherIsBetter(opts.Metric, runs), Reasons: loadReasons, Warnings: []string{}, Arms: []Arm{}, Deltas: []Delta{}}
	if r.Reasons == nil {
		r.Reasons = []reason.Reason{}
	}
	r.Warnings = append(r.Warnings, unverified(runs, opts)...)
	g := gate{r: r, runs: runs, opts: opts, metricGiven: metricGiven, missing: map[string]bool{}, notRun: notRun, neverRan: neverRan}
	for _, run := range all {
		if run.Evidence == nil {
			g.missing[filepath.Base(run.Path)] = true // already said, by LoadRuns
		}
	}
	g.check()
	r.Reasons = holdUndone(reason.Merge(r.Reasons), g.undone) // one fact of many runs said once
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
		case !run.signed():
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

// Provenance is a bundle run's provenance.json, nil for a run that is no
// bundle or holds none: as LoadRuns read it, else read now.
func (r Run) Provenance() *bundle.Provenance { return provenance(r) }

func provenance(run Run) *bundle.Provenance {
	if run.prov != nil {
		return run.prov
	}
	return readProvenance(run.Dir)
}

// readProvenance is nil when dir holds no provenance or it does not read:
// a bundle whose provenance.json was changed fails its verification.
func readProvenance(dir string) *bundle.Provenance {
	prov, _ := bundle.ReadProvenance(dir)
	return prov
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
