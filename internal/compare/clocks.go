package compare

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// clocks holds the arms' GPUs to equal clocks: each arm's mean SM clock
// during the measured phase (the mean of its counted runs' means) against
// the baseline's. A difference beyond the smallest effect of interest is
// as large as the change the comparison could claim, and may be the
// clocks' (a hotter, power-capped or shared node), not the arms'. It is
// a warning, or clock-mismatch under telemetry.sm_clocks: censor.
func (g *gate) clocks() {
	perRun := map[string][]float64{}
	censor := false
	sampled := 0
	for _, run := range g.runs {
		t := run.Evidence.GPUTelemetry
		if t == nil || !counted(run) || t.MeanSMClockMHz <= 0 {
			continue
		}
		sampled++
		perRun[run.Evidence.Arm] = append(perRun[run.Evidence.Arm], t.MeanSMClockMHz)
		censor = censor || t.SMClocks == scenarios.ClocksCensor
	}
	if sampled == 0 {
		return
	}
	base, ok := meanOf(perRun[g.r.Baseline])
	if !ok {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("the baseline %s's runs have no GPU clocks sampled, other arms' have: the arms' clocks cannot be held equal", g.r.Baseline))
		return
	}
	effect, from := g.effect()
	for _, arm := range g.arms {
		m, ok := meanOf(perRun[arm])
		if arm == g.r.Baseline {
			continue
		}
		if !ok {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("arm %s's runs have no GPU clocks sampled, the baseline's have: the arms' clocks cannot be held equal", arm))
			continue
		}
		diff := 100 * (m - base) / base
		if math.Abs(diff) <= effect {
			continue
		}
		detail := fmt.Sprintf("arm %s's GPUs ran at a mean SM clock of %.0f MHz during the measured phase, the baseline %s's at %.0f MHz (%+.1f%%, beyond the smallest effect of interest %g%%, %s): a change that size may be the clocks', not the arms' (look for throttling, power caps, other tenants of the nodes; lock the clocks in a setup hook)",
			arm, m, g.r.Baseline, base, diff, effect, from)
		if censor {
			g.add(reason.New(reason.ClockMismatch, "%s", detail))
		} else {
			g.r.Warnings = append(g.r.Warnings, detail+"; telemetry.sm_clocks: censor censors it")
		}
	}
}

func meanOf(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs)), true
}

// ArmGPU is what one arm's GPU samples say, for the report: the means of
// its counted runs' means (each over the run's GPUs, by their samples),
// and the time its GPUs were held back, by slowdown reason.
type ArmGPU struct {
	Arm             string  `json:"arm"`
	Runs            int     `json:"runs"`
	MeanSMClockMHz  float64 `json:"mean_sm_clock_mhz"`
	MeanMemClockMHz float64 `json:"mean_mem_clock_mhz"`
	MeanPowerW      float64 `json:"mean_power_w"`
	// SampledMS is the time the samples of every GPU of every run cover;
	// ThrottledMS the part of it each slowdown reason held.
	SampledMS   int64            `json:"sampled_ms"`
	ThrottledMS map[string]int64 `json:"throttled_ms,omitempty"`
}

// gpuSummary is each arm's ArmGPU, for the arms whose runs sampled GPUs.
func (g *gate) gpuSummary() {
	for _, arm := range g.arms {
		a := ArmGPU{Arm: arm}
		var sm, mem, power []float64
		for _, run := range g.runs {
			t := run.Evidence.GPUTelemetry
			if run.Evidence.Arm != arm || t == nil || !counted(run) || len(t.GPUs) == 0 {
				continue
			}
			a.Runs++
			sm = append(sm, weighted(t.GPUs, func(x gputelemetry.GPU) float64 { return x.MeanSMClockMHz }))
			mem = append(mem, weighted(t.GPUs, func(x gputelemetry.GPU) float64 { return x.MeanMemClockMHz }))
			power = append(power, weighted(t.GPUs, func(x gputelemetry.GPU) float64 { return x.MeanPowerW }))
			for _, gpu := range t.GPUs {
				a.SampledMS += gpu.SpanMS
				for _, r := range gputelemetry.Slowdowns {
					if ms := gpu.ThrottledMS[r]; ms > 0 {
						if a.ThrottledMS == nil {
							a.ThrottledMS = map[string]int64{}
						}
						a.ThrottledMS[r] += ms
					}
				}
			}
		}
		if a.Runs == 0 {
			continue
		}
		a.MeanSMClockMHz, _ = meanOf(sm)
		a.MeanMemClockMHz, _ = meanOf(mem)
		a.MeanPowerW, _ = meanOf(power)
		g.r.GPUs = append(g.r.GPUs, a)
	}
}

// weighted is the mean of v over gpus by their samples, leaving out a
// GPU without it (0).
func weighted(gpus []gputelemetry.GPU, v func(gputelemetry.GPU) float64) float64 {
	var sum float64
	n := 0
	for _, x := range gpus {
		if v(x) > 0 {
			sum += v(x) * float64(x.Samples)
			n += x.Samples
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// Line says a's GPUs in a report: their means and the time held back.
func (a ArmGPU) Line() string {
	line := fmt.Sprintf("arm %s: SM %.0f MHz, memory %.0f MHz, %.0f W (mean of %d run(s), %s sampled)", a.Arm, a.MeanSMClockMHz, a.MeanMemClockMHz, a.MeanPowerW,
		a.Runs, time.Duration(a.SampledMS)*time.Millisecond)
	if len(a.ThrottledMS) == 0 {
		return line + "; never throttled"
	}
	var parts []string
	for _, r := range gputelemetry.Slowdowns {
		if ms, ok := a.ThrottledMS[r]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", r, time.Duration(ms)*time.Millisecond))
		}
	}
	return line + "; throttled " + strings.Join(parts, ", ")
}
