package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/evidence/compare"
)

type compareOptions struct {
	baseline    string
	metric      string
	effect      float64
	alpha       float64
	method      string
	calibration string
	failOn      string
	plot        string
	plotURL     string
	verify      verifyOptions
	format      formatFlag

	// resolved and verified are what complete made of the flags.
	resolved compare.Options
	verified bundle.VerifyOptions
}

// compareFlags name compare.Options' fields by the flags that set them.
var compareFlags = fieldFlags{"Effect": "--smallest-effect", "Alpha": "--alpha", "Method": "--method", "FailOn": "--fail-on"}

func addCompareFlags(cmd *cobra.Command, opts *compareOptions) {
	fs := cmd.Flags()
	fs.StringVar(&opts.baseline, "baseline", "", "baseline arm (default: the scenario's), or a stored baseline: an earlier campaign of the same scenario (its abbench run --out directory, or one run: an arm directory or bundle archive) each arm is also compared with")
	fs.StringVar(&opts.metric, "metric", "", "record metric: output_throughput, request_throughput, total_token_throughput, duration, or a regex record's group (default: the scenario's evidence.throughput.metric, else output_throughput)")
	fs.Float64Var(&opts.effect, "smallest-effect", 0, "smallest effect of interest in percent: improved/regressed need the estimate to reach it, no-change needs the interval inside it (default: the scenario's noise_threshold, else 3)")
	fs.Float64Var(&opts.effect, "threshold", 0, "the old name of --smallest-effect")
	if err := fs.MarkHidden("threshold"); err != nil {
		panic(err) // the flag is defined just above: a bug here
	}
	fs.Float64Var(&opts.alpha, "alpha", compare.Alpha, "level of the tests; intervals are at 1-alpha")
	fs.StringVar(&opts.method, "method", decide.Auto, "paired method: auto (the paired t, the signed-rank when a pair is an outlier and there are 6 or more), t, or robust")
	fs.StringVar(&opts.calibration, "calibration", "", "calibration file from abbench run --calibrate: the pairs its noise needs (run: sets --max-pairs; compare: warns when fewer)")
	fs.StringVar(&opts.failOn, "fail-on", "", "exit 5 when the accepted verdict is regressed (regression), not improved (inconclusive), or decided by no test: descriptive or inconclusive (undecided); several comma-separated")
	fs.StringVar(&opts.plot, "plot", "", "also write an SVG plot of every run's value per arm to this file")
	fs.StringVar(&opts.plotURL, "plot-url", "", "where the plot will be (a CI artifact's URL): the Markdown report links it")
	addSignerFlags(fs, &opts.verify, "verify every run's bundle against this allowed_signers file first; unsigned or untrusted runs are refused (exit 4)")
}

func newCompareCmd() *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:     "compare RUN...",
		Short:   "Censor gate and statistics over the runs of two or more arms",
		Long:    help("compare"),
		Example: help("compare.examples"),
		Args:    argsUsage(cobra.MinimumNArgs(1), "give the runs to compare, for example abbench compare out/async out/blocking"),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, cleanup, err := loadComparedRuns(&opts, args)
			defer cleanup()
			if err != nil {
				return err
			}
			return runCompare(cmd.OutOrStdout(), opts, runs)
		},
	}
	addCompareFlags(cmd, &opts)
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json", "markdown", "junit", "csv")
	return cmd
}

// loadComparedRuns completes the flags, then loads the runs: a bundle that
// fails verification exits 4, a path that is no run 2.
func loadComparedRuns(opts *compareOptions, args []string) ([]compare.Run, func(), error) {
	if err := opts.complete(); err != nil { // bad flags are said before any run is read
		return nil, func() {}, err
	}
	runs, cleanup, err := compare.LoadRuns(args, opts.verified)
	var ve *bundle.VerifyError
	if errors.As(err, &ve) {
		return nil, cleanup, &statusError{code: exitUnverfied, err: err}
	} else if err != nil {
		return nil, cleanup, usageError(err, "")
	}
	return runs, cleanup, nil
}

// options are the comparison's options as the flags give them.
func (o *compareOptions) options() compare.Options {
	return compare.Options{Baseline: o.baseline, Metric: o.metric, Effect: o.effect, Alpha: o.alpha, Method: o.method, PlotURL: o.plotURL, FailOn: o.failOn}
}

// complete checks the flags and resolves them, once, into the
// comparison's options (the calibration read) and the bundles'
// verification (the allowed signers read).
func (o *compareOptions) complete() error {
	if err := o.format.check(); err != nil {
		return err
	}
	co := o.options()
	if err := co.Check(); err != nil {
		return fieldUsage(err, compareFlags, "")
	}
	if o.calibration != "" {
		c, err := compare.ReadCalibration(o.calibration)
		if err != nil {
			return usageError(err, "write one with abbench run SCENARIO --calibrate ARM --repeat PAIRS")
		}
		co.Calibration = c
	}
	vo, err := o.verify.bundleOptions()
	if err != nil {
		return err
	}
	o.resolved, o.verified = co, vo
	return nil
}

// runCompare compares runs as opts, completed, say.
func runCompare(stdout io.Writer, opts compareOptions, runs []compare.Run) error {
	co, vo := opts.resolved, opts.verified
	checked, err := opts.verify.verifySigners(runs, vo)
	if err != nil {
		return err
	}
	co.SignaturesChecked = checked
	if opts.baseline != "" && !compare.IsArm(runs, opts.baseline) { // a stored baseline
		stored, cleanup, err := compare.LoadStored(opts.baseline, runs, vo)
		defer cleanup()
		if refused := (*compare.StoredRefused)(nil); errors.As(err, &refused) {
			return &statusError{code: exitUnverfied, err: err}
		} else if err != nil {
			return usagef("give an arm of these runs or an earlier campaign of the same scenario (its abbench run --out directory)", "--baseline %s: no arm of these runs, and %v", opts.baseline, err)
		}
		co.Stored, co.StoredPath, co.Baseline = stored, opts.baseline, ""
	}
	r := compare.Compare(runs, co)
	if err := r.Render(stdout, opts.format.value, opts.failOn); err != nil {
		return err
	}
	if opts.plot != "" {
		if err := r.WriteSVGFile(opts.plot); err != nil {
			return err
		}
	}
	if err := r.GitHub(os.Getenv, os.Stderr); err != nil {
		return err
	}
	switch {
	case r.Verdict == compare.Censored:
		return &statusError{code: exitCensored, err: fmt.Errorf("comparison censored: %s", r.Reasons[0]),
			hint: "every reason is listed above; fix what they name and run again"}
	case r.FailsOn(opts.failOn) != "":
		return &statusError{code: exitFailOn, err: fmt.Errorf("--fail-on %s: %s", r.FailsOn(opts.failOn), r.Headline())}
	case r.GateUndecided != "":
		fmt.Fprintf(os.Stderr, "abbench: %s\n", r.GateUndecided)
	}
	return nil
}
