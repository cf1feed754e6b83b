package comparison

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/compare"
)

// runSweep compares a sweep's runs cell by cell (compare.CompareSweep),
// reports it in its --format, and returns its exit status: censored (3)
// when a cell or the sweep is, a --fail-on condition a cell meets (5).
func (o *Options) runSweep(stdout io.Writer, runs []compare.Run, co compare.Options) error {
	if !slices.Contains(compare.SweepFormats, o.Format.Value) {
		return cli.Usagef("give --format "+strings.Join(compare.SweepFormats, " or "), "--format %s: these runs are a sweep's, reported as one table of its cells", o.Format.Value)
	}
	if o.Baseline != "" && !compare.IsArm(runs, o.Baseline) {
		return cli.Usagef("give an arm of these runs as --baseline", "--baseline %s: a stored baseline is compared with one scenario's runs, and these are a sweep's cells", o.Baseline)
	}
	sw := compare.CompareSweep(runs, co)
	if err := o.report(stdout, sw); err != nil {
		return err
	}
	if o.Plot != "" {
		if err := sw.WriteSVGFile(o.Plot); err != nil {
			return err
		}
	}
	if sw.Verdict == compare.Censored {
		return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("sweep censored: %s", sweepCensor(sw)),
			Hint: "every reason is listed above; the cells not censored stand, each with its verdict held to the sweep's alpha with every cell's tests"}
	}
	if cell, cond := sw.FailsOn(o.FailOn); cond != "" {
		return &cli.Error{Code: cli.ExitFailOn, Err: fmt.Errorf("--fail-on %s: cell %s", cond, cell)}
	}
	return nil
}

// sweepCensor is the first reason a sweep is censored: its own, else its
// first censored cell's.
func sweepCensor(sw *compare.Sweep) string {
	if len(sw.Reasons) > 0 {
		return sw.Reasons[0].String()
	}
	for _, c := range sw.Cells {
		if r := c.Comparison; r.Verdict == compare.Censored && len(r.Reasons) > 0 {
			return fmt.Sprintf("cell %s: %s", c.Cell, r.Reasons[0])
		}
	}
	return "a cell is censored"
}

// runFamily compares runs on several metrics together
// (compare.CompareMetrics), reports each metric's table and the family,
// and returns the exit status: censored (3) when a metric's comparison
// is, a --fail-on condition a metric meets (5).
func (o *Options) runFamily(stdout io.Writer, runs []compare.Run, co compare.Options, metrics []string) error {
	switch {
	case !slices.Contains(compare.FamilyFormats, o.Format.Value):
		return cli.Usagef("give --format "+strings.Join(compare.FamilyFormats, " or ")+", or one --metric", "--format %s: several metrics are reported as a table each", o.Format.Value)
	case compare.IsSweep(runs):
		return cli.Usagef("give one --metric", "--metric %s: these runs are a sweep's, whose cells are already a family of tests; compare one metric at a time", strings.Join(metrics, ","))
	case o.Baseline != "" && !compare.IsArm(runs, o.Baseline):
		return cli.Usagef("give one --metric", "--baseline %s: a stored baseline is compared on one metric", o.Baseline)
	}
	f := compare.CompareMetrics(runs, co, metrics)
	if err := o.report(stdout, f); err != nil {
		return err
	}
	// A plot shows one metric: the first, the headline (the scenario's
	// metric, or the first --metric). Refusing here instead failed a
	// campaign whose scenario declares several metrics after all its runs.
	if o.Plot != "" && len(f.Comparisons) > 0 {
		if err := compare.NewReport(f.Comparisons[0]).WriteSVGFile(o.Plot); err != nil {
			return err
		}
	}
	if r := f.Censored(); r != nil {
		return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("comparison of %s censored: %s", r.Metric, o.firstCause(r)), Hint: o.censoredHint()}
	}
	for _, r := range f.Comparisons {
		if cond := r.FailsOn(o.FailOn); cond != "" {
			return &cli.Error{Code: cli.ExitFailOn, Err: fmt.Errorf("--fail-on %s: %s: %s", cond, r.Metric, compare.NewReport(r).Headline())}
		}
	}
	return nil
}
