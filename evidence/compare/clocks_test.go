package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/reason"
)

// Arms whose GPUs ran at mean SM clocks 5% apart, beyond the smallest
// effect of interest (1%), are warned of, or censored clock-mismatch
// under telemetry.sm_clocks: censor; clocks within it, or runs without
// telemetry, are neither.
func TestArmsSMClocksHeldEqual(t *testing.T) {
	for _, c := range []struct {
		name            string
		policy          string
		async, blocking float64
		warned, censor  bool
	}{
		{"5% apart, warn", "warn", 1881, 1980, true, false},
		{"5% apart, censor", "censor", 1881, 1980, false, true},
		{"0.5% apart", "censor", 1970, 1980, false, false},
		{"not sampled", "censor", 0, 0, false, false},
	} {
		runs := runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {150, 151, 149}})
		for _, run := range runs {
			clock := map[string]float64{"async": c.async, "blocking": c.blocking}[run.Evidence.Arm]
			if clock > 0 {
				run.Evidence.GPUTelemetry = &evidence.GPUTelemetry{MeanSMClockMHz: clock, SMClocks: c.policy}
			}
		}
		r := Compare(runs, Options{})
		warned := strings.Contains(strings.Join(r.Warnings, "\n"), "arm async's GPUs ran at a mean SM clock of 1881 MHz during the measured phase, the baseline blocking's at 1980 MHz (-5.0%, beyond the smallest effect of interest 1%")
		censored := r.Verdict == Censored && codes(r) == string(reason.ClockMismatch)
		if warned != c.warned || censored != c.censor {
			t.Errorf("%s: verdict %s, reasons %v, warnings %q", c.name, r.Verdict, r.Reasons, r.Warnings)
		}
	}
}
