package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/reason"
)

type compareOptions struct {
	baseline    string
	metric      string
	threshold   float64
	calibration string
	failOn      string
	plot        string
	verify      verifyOptions
	format      formatFlag
}

func addCompareFlags(cmd *cobra.Command, opts *compareOptions) {
	fs := cmd.Flags()
	fs.StringVar(&opts.baseline, "baseline", "", "baseline arm (default: the scenario's)")
	fs.StringVar(&opts.metric, "metric", "", "record metric: output_throughput, request_throughput, total_token_throughput, duration, or a regex record's group (default: the scenario's evidence.throughput.metric, else output_throughput)")
	fs.Float64Var(&opts.threshold, "threshold", 0, "noise threshold in percent (default: the scenario's, else 3)")
	fs.StringVar(&opts.calibration, "calibration", "", "calibration file from abbench run --calibrate: its minimum detectable effect is the threshold")
	fs.StringVar(&opts.failOn, "fail-on", "", "exit 5 when the verdict is regressed (regression) or not improved (inconclusive)")
	fs.StringVar(&opts.plot, "plot", "", "also write an SVG plot of every run's value per arm to this file")
	fs.StringVar(&opts.verify.allowedSigners, "allowed-signers", "", "verify every run's bundle against this allowed_signers file first; unsigned or untrusted runs are refused (exit 4)")
	fs.StringVar(&opts.verify.identity, "identity", "", "with --allowed-signers: require this principal")
}

func newCompareCmd() *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare RUN...",
		Short: "Censor gate and statistics over the runs of two or more arms",
		Long: `compare reads the evidence of arm runs (run directories, abbench arm --out
directories, or abbench run --out directories) and applies the censor gate:
every run's evidence accepted, one matched digest, one workload digest and
digest algorithm across arms (a difference is explained from the per-prompt
records: reordered, or which prompts are in one arm only), every rank in its
arm's mode, no run given twice, every arm present. Every reason is
collected; a censored comparison prints no delta as if it meant something.

Otherwise it compares each treatment with the baseline on --metric: per arm
n, median, mean and coefficient of variation; the delta of medians in
percent. With several runs per arm, the Mann-Whitney U test (as benchstat)
decides at alpha 0.05 and a bootstrap gives the delta's 95% interval; with
one run per arm, or too few for the U test, the delta counts only beyond the
noise threshold (--threshold, the scenario's, or --calibration's minimum
detectable effect). Verdicts: improved, regressed, inconclusive (delta
printed as ~), censored.

When GITHUB_STEP_SUMMARY is set, the Markdown report is appended to it.`,
		Example: `  abbench compare out/async out/blocking
  abbench compare out/terminal-agreement-20261130T080000Z --format markdown
  abbench compare stage-a/ stage-b/ --fail-on regression --format junit > report.xml`,
		Args: argsUsage(cobra.MinimumNArgs(1), "give the runs to compare, for example abbench compare out/async out/blocking"),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, cleanup, err := compare.LoadRuns(args)
			defer cleanup()
			if err != nil {
				return usageError(err, "")
			}
			return runCompare(cmd.OutOrStdout(), opts, runs)
		},
	}
	addCompareFlags(cmd, &opts)
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json", "markdown", "junit")
	return cmd
}

func (o *compareOptions) check() error {
	if err := o.format.check(); err != nil {
		return err
	}
	if o.failOn != "" && o.failOn != "regression" && o.failOn != "inconclusive" {
		return usagef("", "--fail-on %q: choose regression or inconclusive", o.failOn)
	}
	if o.threshold < 0 {
		return usagef("", "--threshold %v: must be positive", o.threshold)
	}
	return nil
}

func runCompare(stdout io.Writer, opts compareOptions, runs []compare.Run) error {
	if err := opts.check(); err != nil {
		return err
	}
	co := compare.Options{Baseline: opts.baseline, Metric: opts.metric, Threshold: opts.threshold}
	if opts.calibration != "" {
		c, err := compare.ReadCalibration(opts.calibration)
		if err != nil {
			return usageError(err, "write one with abbench run SCENARIO --calibrate ARM --repeat N")
		}
		co.Calibration = c
	}
	if opts.verify.allowedSigners != "" {
		if err := verifyRuns(opts.verify, runs); err != nil {
			return err
		}
	}
	r := compare.Compare(runs, co)
	switch opts.format.value {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	case "markdown":
		if err := r.Markdown(stdout); err != nil {
			return err
		}
	case "junit":
		if err := r.JUnit(stdout, opts.failOn); err != nil {
			return err
		}
	default:
		printComparison(stdout, r)
	}
	if opts.plot != "" {
		f, err := os.Create(opts.plot)
		if err != nil {
			return err
		}
		err = r.SVG(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("appending the report to GITHUB_STEP_SUMMARY: %w", err)
		}
		r.Markdown(f)
		f.Close()
	}
	switch {
	case r.Verdict == compare.Censored:
		return &statusError{code: exitCensored, err: fmt.Errorf("comparison censored: %s", r.Reasons[0]),
			hint: "every reason is listed above; fix what they name and run again"}
	case opts.failOn == "regression" && r.Verdict == compare.Regressed,
		opts.failOn == "inconclusive" && r.Verdict != compare.Improved:
		return &statusError{code: exitFailOn, err: fmt.Errorf("--fail-on %s: %s", opts.failOn, r.Headline())}
	}
	return nil
}

func printComparison(w io.Writer, r *compare.Result) {
	fmt.Fprintf(w, "comparison of %s on %s, baseline %s\n", r.Scenario, r.Metric, r.Baseline)
	if r.Verdict == compare.Censored {
		fmt.Fprintf(w, "\nCENSORED: no delta is reported. Every reason:\n")
		for _, rs := range r.Reasons {
			fmt.Fprintf(w, "  %s\n", rs)
		}
		fmt.Fprintln(w, "\nraw values (not comparable):")
	}
	fmt.Fprintln(w)
	var rows [][]string
	for _, a := range r.Arms {
		delta, interval, p, verdict := r.DeltaCells(a.Name)
		rows = append(rows, []string{a.Name, fmt.Sprint(a.N), fmt.Sprintf("%.1f", a.Median), fmt.Sprintf("%.1f", a.Mean), fmt.Sprintf("%.2f%%", 100*a.CV), delta, interval, p, verdict})
	}
	writeTable(w, []string{"arm", "n", "median", "mean", "cv", "delta", "95% interval", "p", "verdict"}, rows)
	if r.Workload != nil && r.Verdict != compare.Censored {
		fmt.Fprintf(w, "\nworkload: %s\nmatched:  %s\n", r.Workload, r.MatchedDigest)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "\nverdict: %s\n", r.Headline())
}

// verifyRuns refuses any run that is not a bundle signed by an allowed signer.
func verifyRuns(vo verifyOptions, runs []compare.Run) error {
	bo, err := vo.bundleOptions()
	if err != nil {
		return err
	}
	var failed []string
	for _, run := range runs {
		if !run.IsBundle() {
			failed = append(failed, fmt.Sprintf("%s: %s: not a bundle (no manifest.json), so not signed", reason.SignatureInvalid, run.Path))
			continue
		}
		if _, err := bundle.Verify(run.Dir, bo); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %s", reason.SignatureInvalid, strings.ReplaceAll(err.Error(), run.Dir, run.Path)))
		}
	}
	if len(failed) > 0 {
		return &statusError{code: exitUnverfied, err: fmt.Errorf("--allowed-signers: %d run(s) refused:\n%s", len(failed), strings.Join(failed, "\n"))}
	}
	return nil
}
