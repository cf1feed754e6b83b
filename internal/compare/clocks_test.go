package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/reason"
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

// The report says each arm's GPUs: mean SM and memory clocks, power, and
// the time held back by each slowdown reason (idle is no throttling).
func TestGPUsInTheReport(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {100, 101}, "async": {150, 151}})
	for _, run := range runs {
		gpu := gputelemetry.GPU{Index: 0, Samples: 50, SpanMS: 10000, MeanSMClockMHz: 1980, MeanMemClockMHz: 3201, MeanPowerW: 600,
			ThrottledMS: map[string]int64{"gpu_idle": 2000}}
		if run.Evidence.Arm == "async" {
			gpu.MeanSMClockMHz, gpu.ThrottledMS = 1960, map[string]int64{"sw_power_cap": 8000, "gpu_idle": 1000}
		}
		run.Evidence.GPUTelemetry = &evidence.GPUTelemetry{GPUs: []gputelemetry.GPU{gpu}, MeanSMClockMHz: gpu.MeanSMClockMHz, SMClocks: "warn"}
	}
	r := Compare(runs, Options{})
	var text, md strings.Builder
	if err := NewReport(r).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := NewReport(r).Markdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"gpus:     arm async: SM 1960 MHz, memory 3201 MHz, 600 W (mean of 2 run(s), 20s sampled); throttled sw_power_cap 16s\n",
		"gpus:     arm blocking: SM 1980 MHz, memory 3201 MHz, 600 W (mean of 2 run(s), 20s sampled); never throttled\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(md.String(), "- gpus: arm async: SM 1960 MHz") || len(r.GPUs) != 2 || r.GPUs[0].ThrottledMS["sw_power_cap"] != 16000 {
		t.Errorf("markdown:\n%s\nGPUs %+v", md.String(), r.GPUs)
	}
}
