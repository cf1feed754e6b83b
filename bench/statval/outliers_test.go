package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/abbench/abbench/internal/decide"
)

// slowRuns is 1% normal noise with a share of runs 30% slow: the
// heavy-tailed noise under which the futility stop threw power away.
func slowRuns(share float64) decide.Model {
	return decide.Model{Name: "5% of runs 30% slow, CV 1%", Draw: func(r *rand.Rand, treated []bool) []float64 {
		e := make([]float64, len(treated))
		for i := range e {
			e[i] = 0.01 * r.NormFloat64()
			if r.Float64() < share {
				e[i] += math.Log(0.7)
			}
		}
		return e
	}}
}

// Under outliers the futility stop costs the default design no power
// against benchstat: it finds a true +2%, +3% and +5% at least as often
// as benchstat on 10+10 of the same runs. The stop computed the
// conditional power from the pairs' standard deviation even at looks the
// signed-rank test decides, where one slow run makes it several times the
// noise: with it, the design found +5% in 70% of these campaigns, benchstat
// in 94% (this test failed so before). The same design without the stop
// is logged: over 18 pairs it finds +3% in every campaign where the stop
// gave up on a few in which two or three of the first 6 to 8 pairs held
// a slow run (97.8% against 100%, 500 campaigns): a look no outlier rule
// flags, since the slow pairs are the pairs' spread.
func TestFutilityCostsNoPowerUnderOutliers(t *testing.T) {
	seq := monteCarloDesign(t)
	noFutility := *seq
	noFutility.Futility = 0
	rule := decide.Rule{Alpha: decide.DefaultRule.Alpha, Effect: decide.DefaultRule.Effect, HigherIsBetter: true}
	designs := []decide.Design{decide.SequentialDesign("sequential", seq), decide.SequentialDesign("no futility", &noFutility), benchstat(benchstatPairs)}
	rows := decide.Validate(slowRuns(0.05), designs, rule, 500, 11)
	for i, effect := range decide.Effects[1:] {
		if effect < 2 {
			continue
		}
		with, bench := rows[0].Power[i], rows[2].Power[i]
		// The standard error of the difference holds both rates' own:
		// near 100% one alone is a tenth of a point (at 99.8% of 500),
		// less than three campaigns of 500.
		n := float64(rows[0].Trials)
		se := math.Sqrt(with*(1-with)/n + bench*(1-bench)/n)
		t.Logf("+%g%%: found by the default design in %.1f%%, without the futility stop %.1f%%, benchstat %.1f%% (%d campaigns)", effect, 100*with, 100*rows[1].Power[i], 100*bench, rows[0].Trials)
		if with < bench-2*se {
			t.Errorf("+%g%% with 5%% of runs 30%% slow: found in %.1f%% of %d campaigns with the futility stop, benchstat %.1f%%", effect, 100*with, rows[0].Trials, 100*bench)
		}
	}
	if rows[0].FalseRate > decide.GoalFalseRate+2*math.Sqrt(0.05*0.95/float64(rows[0].Trials)) {
		t.Errorf("A/A false verdicts %.1f%%", 100*rows[0].FalseRate)
	}
}

// Under outliers the default design finds a true change of 2% or more
// within 3 points of benchstat on 10+10 of the same runs (over 18 pairs
// above it: 95.5 to 95.7% against 88.5 to 89.2% at +2%, 98.7 to 99.2%
// against 97.8 to 98.5% at +3% and +5%; 600 campaigns), and its A/A
// rate stays within alpha. The signed-rank test
// auto took where a pair was an outlier gave that pair the largest rank,
// a full vote against the change: with 5% of runs 20% slow it found +2%
// in 80% against benchstat's 90%, +5% in 90% against 99.5% (this test
// failed so); the trimmed t gives it the vote of the most extreme pair
// kept. With the trimmed t alone, two slow runs among six pairs still
// stopped campaigns futile (+2%: 86%, 3.5 points short: it failed so
// too; decide.FutilityOutlierZ).
func TestDefaultDesignMatchesBenchstatUnderOutliers(t *testing.T) {
	seq := monteCarloDesign(t)
	rule := decide.Rule{Alpha: decide.DefaultRule.Alpha, Effect: decide.DefaultRule.Effect, HigherIsBetter: true}
	const trials = 600
	for _, m := range []decide.Model{model(t, "5% of runs 20% slow, CV 1%"), slowRuns(0.05)} {
		rows := decide.Validate(m, []decide.Design{decide.SequentialDesign("sequential", seq), benchstat(benchstatPairs)}, rule, trials, 5)
		for i, effect := range decide.Effects[1:] {
			if effect < 2 {
				continue
			}
			got, bench := rows[0].Power[i], rows[1].Power[i]
			const slack = 0.03
			t.Logf("%s, +%g%%: the default design %.1f%%, benchstat %.1f%%", m.Name, effect, 100*got, 100*bench)
			if got < bench-slack {
				t.Errorf("%s, +%g%%: the default design found it in %.1f%% of %d campaigns, benchstat in %.1f%%", m.Name, effect, 100*got, trials, 100*bench)
			}
		}
		if rows[0].FalseRate > decide.GoalFalseRate+2*math.Sqrt(0.05*0.95/trials) {
			t.Errorf("%s: A/A false verdicts %.1f%%", m.Name, 100*rows[0].FalseRate)
		}
	}
}
