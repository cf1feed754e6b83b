package main

import (
	"golang.org/x/perf/benchmath"

	"github.com/abbench/abbench/internal/decide"
)

// benchstat is benchstat's comparison of the same simulated runs: the two
// arms' runs unpaired, the Mann-Whitney U test at 0.05 (benchmath's
// AssumeNothing, what benchstat applies by default). It reports a change
// whenever the test is significant, whatever its size, and has no
// interval of the change nor a no-change verdict.
func benchstat(pairs int) decide.Design {
	return decide.Design{Name: "benchstat, unpaired U test", Decide: func(c decide.Campaign, r decide.Rule) decide.Outcome {
		thresholds := benchmath.DefaultThresholds
		base := benchmath.NewSample(c.Base[:pairs], &thresholds)
		treat := benchmath.NewSample(c.Treat[:pairs], &thresholds)
		out := decide.Outcome{Verdict: decide.Inconclusive, Runs: 2 * pairs}
		if cmp := benchmath.AssumeNothing.Compare(base, treat); cmp.P <= cmp.Alpha {
			higher := median(c.Treat[:pairs]) > median(c.Base[:pairs])
			out.Verdict = map[bool]string{true: decide.Improved, false: decide.Regressed}[higher == r.HigherIsBetter]
		}
		return out
	}}
}

func median(x []float64) float64 {
	med, _, _ := decide.Describe(x)
	return med
}
