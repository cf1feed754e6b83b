// Package comparison is the flags of a comparison and the comparison a
// command makes with them: abbench compare, abbench run (after its
// campaign) and abbench history add share it.
package comparison

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/signing"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/suggest"
)

// Options are a comparison's flags.
type Options struct {
	Baseline string
	// Metric are the metrics --metric names (several: a family of tests,
	// Holm-adjusted); none: the scenario's declared metrics, else its
	// headline.
	Metric      []string
	Effect      float64
	Alpha       float64
	Method      string
	Calibration string
	FailOn      string
	Plot        string
	PlotURL     string
	Trust       signing.Trust
	Format      cli.Format
	// Summary, when not "", has a table report of one comparison printed
	// as its summary (compare.Result.WriteSummary), Summary being the
	// command that prints the full report.
	Summary string

	// Resolved and Verified are what Complete made of the flags: the
	// comparison's options and the bundles' verification.
	Resolved compare.Options
	Verified bundle.VerifyOptions
}

// FieldFlags name compare.Options' fields by the flags that set them.
var FieldFlags = cli.FieldFlags{"Effect": "--smallest-effect", "Alpha": "--alpha", "Method": "--method", "FailOn": "--fail-on"}

// AddFlags adds every flag of a comparison but --format.
func AddFlags(cmd *cobra.Command, opts *Options) {
	fs := cmd.Flags()
	fs.StringVar(&opts.Baseline, "baseline", "", "baseline arm (default: the scenario's), or a stored baseline: an earlier campaign of the same scenario (its abbench run --out directory, or one run: an arm directory or bundle archive) each arm is also compared with")
	fs.StringSliceVar(&opts.Metric, "metric", nil, "record metric: output_throughput, request_throughput, total_token_throughput, duration, goodput, a latency STAT_KIND_ms (p99_ttft_ms, median_itl_ms, mean_e2el_ms), or a regex record's group; several (comma-separated or repeated) are compared together, a table each, their tests one family (Holm-adjusted; of a sequential campaign each at its share of alpha) (default: the scenario's evidence.throughput.metrics, else its metric, else the format's headline)")
	fs.Float64Var(&opts.Effect, "smallest-effect", 0, "smallest effect of interest in percent: improved/regressed need the estimate to reach it, no-change needs the interval inside it (default 1; the scenario's noise_threshold is not it)")
	fs.Float64Var(&opts.Effect, "threshold", 0, "the old name of --smallest-effect")
	if err := fs.MarkHidden("threshold"); err != nil {
		panic(err) // the flag is defined just above: a bug here
	}
	fs.Float64Var(&opts.Alpha, "alpha", decide.DefaultRule.Alpha, "level of the tests; intervals are at 1-alpha")
	fs.StringVar(&opts.Method, "method", decide.Auto, "paired method: auto (the paired t, the trimmed t when a pair is an outlier and there are 6 or more), t, or robust (the signed-rank)")
	fs.StringVar(&opts.Calibration, "calibration", "", "calibration file from abbench run --calibrate: the pairs its noise needs (run: sets --max-pairs; compare: warns when fewer)")
	fs.StringVar(&opts.FailOn, "fail-on", "", "exit 5 when the accepted verdict is regressed (regression), not improved (inconclusive), or decided by no test: descriptive or inconclusive (undecided); several comma-separated")
	fs.StringVar(&opts.Plot, "plot", "", "also write an SVG plot of every run's value per arm to this file")
	fs.StringVar(&opts.PlotURL, "plot-url", "", "where the plot will be (a CI artifact's URL): the Markdown report links it")
	signing.AddTrustFlags(fs, &opts.Trust, "verify every run's bundle against this allowed_signers file first; unsigned or untrusted runs are refused (exit 4)")
}

// LoadRuns completes the flags, then loads the runs: a bundle that fails
// verification exits 4, a path that is no run 2.
func (o *Options) LoadRuns(args []string) ([]compare.Run, func(), error) {
	if err := o.Complete(); err != nil { // bad flags are said before any run is read
		return nil, func() {}, err
	}
	restore := loadingGC(loadingLimit)
	runs, cleanup, err := compare.LoadRuns(args, o.Verified)
	restore()
	var ve *bundle.VerifyError
	if errors.As(err, &ve) {
		return nil, cleanup, &cli.Error{Code: cli.ExitUnverified, Err: err}
	} else if err != nil {
		return nil, cleanup, cli.Usage(err, "")
	}
	return runs, cleanup, nil
}

// metricList is --metric's names, each trimmed of spaces ("p99_ttft_ms,
// goodput" was a metric " goodput" no record has); an empty one or one
// named twice is refused: a family of a metric and itself would halve
// each test's share of alpha for nothing.
func metricList(given []string) ([]string, error) {
	var out []string
	for _, m := range given {
		m = strings.TrimSpace(m)
		switch {
		case m == "":
			return nil, cli.Usagef("name each metric once, comma-separated: --metric p99_ttft_ms,goodput", "--metric %q: an empty metric name", strings.Join(given, ","))
		case slices.Contains(out, m):
			return nil, cli.Usagef("name each metric once", "--metric %s: metric %s is named twice", strings.Join(given, ","), m)
		}
		out = append(out, m)
	}
	return out, nil
}

// Given are the comparison's options as the flags give them.
func (o *Options) Given() compare.Options {
	metric := ""
	if len(o.Metric) == 1 {
		metric = o.Metric[0]
	}
	return compare.Options{Baseline: o.Baseline, Metric: metric, Effect: o.Effect, Alpha: o.Alpha, Method: o.Method, PlotURL: o.PlotURL, FailOn: o.FailOn}
}

// Complete checks the flags and resolves them, once, into Resolved (the
// calibration read) and Verified (the allowed signers read).
func (o *Options) Complete() error {
	if err := o.Format.Check(); err != nil {
		return err
	}
	metrics, err := metricList(o.Metric)
	if err != nil {
		return err
	}
	o.Metric = metrics
	co := o.Given()
	if err := co.Check(); err != nil {
		return cli.FieldUsage(err, FieldFlags, "")
	}
	if o.Calibration != "" {
		c, err := compare.ReadCalibration(o.Calibration)
		if err != nil {
			return cli.Usage(err, "write one with abbench run SCENARIO --calibrate ARM --repeat PAIRS")
		}
		co.Calibration = c
	}
	vo, err := o.Trust.BundleOptions()
	if err != nil {
		return err
	}
	o.Resolved, o.Verified = co, vo
	return nil
}

// Run compares runs as the completed flags say, reports the comparison
// in its --format, and returns its exit status: censored (3), a --fail-on
// condition met (5), a run or stored baseline refused (4).
func (o *Options) Run(stdout io.Writer, runs []compare.Run) error {
	co, vo := o.Resolved, o.Verified
	checked, err := o.Trust.VerifyRuns(runs, vo)
	if err != nil {
		return err
	}
	co.SignaturesChecked = checked
	metrics := o.Metric
	if len(metrics) == 0 {
		metrics = compare.DeclaredMetrics(runs)
	}
	for _, check := range [][]string{metrics, {co.Metric}} {
		if err := compare.CheckMetrics(runs, check); err != nil {
			return cli.Usage(err, unknownMetricHint(err))
		}
	}
	if len(metrics) > 1 {
		return o.runFamily(stdout, runs, co, metrics)
	}
	if len(metrics) == 1 {
		co.Metric = metrics[0]
	}
	if compare.IsSweep(runs) {
		return o.runSweep(stdout, runs, co)
	}
	if o.Baseline != "" && !compare.IsArm(runs, o.Baseline) { // a stored baseline
		stored, cleanup, err := compare.LoadStored(o.Baseline, runs, vo)
		defer cleanup()
		if refused := (*compare.StoredRefused)(nil); errors.As(err, &refused) {
			return &cli.Error{Code: cli.ExitUnverified, Err: err}
		} else if err != nil {
			return cli.Usagef("give an arm of these runs or an earlier campaign of the same scenario (its abbench run --out directory)", "--baseline %s: no arm of these runs, and %v", o.Baseline, err)
		}
		co.Stored, co.StoredPath, co.Baseline = stored, o.Baseline, ""
	}
	r := compare.Compare(runs, co)
	out := compare.NewReport(r)
	if err := o.report(stdout, out); err != nil {
		return err
	}
	if o.Plot != "" {
		if err := out.WriteSVGFile(o.Plot); err != nil {
			return err
		}
	}
	if err := out.GitHub(os.Getenv, os.Stderr); err != nil {
		return err
	}
	switch {
	case r.Verdict == compare.Censored:
		hint := o.censoredHint()
		if r.Reasons[0].Code == reason.Interrupted {
			// Nothing to fix: the runs were stopped on purpose.
			hint = "the campaign was interrupted, not broken: abbench run --resume DIR (its --out directory) runs what is left"
		}
		return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("comparison censored: %s", o.firstCause(r)), Hint: hint}
	case r.FailsOn(o.FailOn) != "":
		return &cli.Error{Code: cli.ExitFailOn, Err: fmt.Errorf("--fail-on %s: %s", r.FailsOn(o.FailOn), out.Headline())}
	case r.GateUndecided != "":
		fmt.Fprintf(os.Stderr, "abbench: %s\n", r.GateUndecided)
	}
	return nil
}

// report is what a comparison, a sweep or a family of metrics writes:
// its summary where abbench run asks for one (Summary, a table), else
// its report in the --format.
type report interface {
	WriteSummary(w io.Writer, full string) error
	Render(w io.Writer, format, failOn string) error
}

// report writes r as the options say.
func (o *Options) report(stdout io.Writer, r report) error {
	if o.summarizes() {
		return r.WriteSummary(stdout, o.Summary)
	}
	return r.Render(stdout, o.Format.Value, o.FailOn)
}

// summarizes says whether the report is abbench run's summary.
func (o *Options) summarizes() bool { return o.Summary != "" && o.Format.Value == "table" }

// firstCause is a censored comparison's first root cause, for its error.
// Under a text report, which printed every root cause whole just above,
// it is named by its code and place (a line, not the 200 columns of its
// detail again); under JSON or Markdown, whose report a person may not
// read, it is said whole.
func (o *Options) firstCause(r *compare.Result) string {
	if o.Format.Value != "table" {
		return r.Reasons[0].String()
	}
	first := r.Reasons[0].Head()
	if n := len(r.Reasons) - 1; n > 0 {
		first += fmt.Sprintf(" and %d more root cause(s)", n)
	}
	return first
}

// censoredHint is a censored comparison's hint: where every reason is.
func (o *Options) censoredHint() string {
	if o.summarizes() {
		return "the root causes come first above; " + o.Summary + " lists every reason"
	}
	if o.Format.Value != "table" {
		return "every reason is in the report (reasons, root causes first); fix what they name and run again"
	}
	return "every reason is listed above; fix what they name and run again"
}

// CheckScenarioMetrics refuses, before anything runs, a --metric that
// the scenario's record format cannot hold (records.Provides), listing
// those it can: a campaign would otherwise run to its end for it.
func (o *Options) CheckScenarioMetrics(s *scenarios.Scenario) error {
	t := s.Evidence.Throughput
	if t == nil {
		return nil
	}
	for _, m := range o.Metric {
		r := s.MetricProblem(m)
		if r == nil {
			continue
		}
		hint := "name one of them, or leave --metric out"
		switch {
		case r.Near != "":
			hint = "did you mean --metric " + r.Near + "?"
		case r.Have == "":
			hint = "do as it says, or leave --metric out"
		}
		return cli.Usagef(hint, "%s", r.Flag(m))
	}
	return nil
}

// unknownMetricHint is the hint of a metric no record holds: the nearest
// one they can hold where there is one (a typo), else how to name one.
func unknownMetricHint(err error) string {
	var unknown *compare.UnknownMetricError
	if errors.As(err, &unknown) {
		if unknown.Metric == records.Goodput {
			return "goodput needs the scenario's evidence.throughput.slo (ttft, tpot, e2e in ms); where it declares one, no request met it: check the objectives against the runs' latencies (--metric p99_ttft_ms, p99_tpot_ms)"
		}
		// The metrics the records hold first: a metric the format may
		// hold but these records do not (p99.9 where the tool wrote no
		// such percentile) is no answer.
		if near := suggest.Closest(unknown.Metric, unknown.Have, max(1, len(unknown.Metric)/4)); near != "" {
			return "did you mean --metric " + near + "?"
		}
		for _, format := range unknown.Formats {
			if near := records.Nearest(format, unknown.Metric); near != "" {
				return "did you mean --metric " + near + "?"
			}
		}
	}
	return "name a metric the records have with --metric (several comma-separated)"
}
