package campaign

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/rundir"
)

// CensoredError says a campaign's evidence cannot be used (exit 3).
type CensoredError struct{ Msg string }

func (e *CensoredError) Error() string { return e.Msg }

// Calibrate derives the A/A noise of metric (empty: the runs' headline
// metric) from a calibration campaign's runs, in plan order and so in
// pairs, plans a comparison at the smallest effect of opts (0: the
// scenario's), and writes calibration.json into its directory. Every run
// must be accepted.
func Calibrate(r *Result, arm string, opts compare.Options, runs []compare.Run) (*compare.Calibration, string, error) {
	metric := opts.Metric
	if metric == "" && len(runs) > 0 && runs[0].Evidence != nil {
		metric = runs[0].Evidence.Headline()
	}
	var values []float64
	effect := opts.Effect
	for _, run := range runs {
		if run.Evidence == nil || !run.Evidence.Accepted {
			return nil, "", &CensoredError{fmt.Sprintf("calibration run %s: evidence not accepted: a calibration needs every run accepted", run.Path)}
		}
		if effect == 0 {
			effect = run.Evidence.NoiseThreshold
		}
		if t := run.Evidence.Throughput; t != nil {
			if v, ok := t.Metrics[metric]; ok {
				values = append(values, v)
			}
		}
	}
	if effect == 0 {
		effect = decide.DefaultRule.Effect
	}
	c, err := compare.Calibrate(arm, metric, values, effect, opts.Alpha)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(r.Out, rundir.CalibrationFile)
	return c, path, rundir.WriteJSON(path, c)
}

// WriteCalibration prints a calibration and the campaign it plans.
func WriteCalibration(w io.Writer, c *compare.Calibration, path string) error {
	out := textout.New(w)
	out.Printf("calibration of arm %s on %s: %d A/A pairs (%d runs)\n", c.Arm, c.Metric, c.Pairs, c.N)
	out.Printf("  paired standard deviation  %.2f%%  (what a paired comparison works against)\n", 100*c.PairedSD)
	out.Printf("  within a pair              %.2f%%  (one run's own noise)\n", 100*c.WithinSD)
	out.Printf("  between pairs              %.2f%%  (allocation, machine state, drift: pairing removes it)\n", 100*c.BetweenSD)
	// Two different questions, said as such: the test's power at the
	// smallest effect, and how often the verdict says improved, which also
	// needs the estimate to reach the smallest effect (so about half the
	// time at a true change of exactly that size, whatever the pairs).
	out.Printf("\nfor the paired test to be significant 80%% of the time at a true change of %.2f%% (the smallest effect of interest), at alpha %.2g: %d pairs\n", c.Effect, c.Alpha, c.PairsNeeded)
	out.Printf("with those %d pairs, simulated campaigns say improved %.0f%% of the time at a true +%.2f%% (improved also needs the estimate to reach %.2f%%: about half the time at exactly that change) and %.0f%% at +%.2f%%\n",
		c.PairsNeeded, 100*c.VerdictRate["1x"], c.Effect, c.Effect, 100*c.VerdictRate["2x"], 2*c.Effect)
	out.Printf("\nwritten to %s; plan with abbench run SCENARIO --calibration %s (it sets --max-pairs)\n", path, path)
	return out.Err()
}
