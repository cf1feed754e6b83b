package compare

import (
	"fmt"
	"math"

	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/scenarios"
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
