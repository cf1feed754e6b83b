package render

import (
	"io"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/textout"
)

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
