package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// One slow treatment run against a true +2%: nine pairs near +2% and one
// at -22%. The signed-rank test gave that pair the largest rank, a full
// vote against the change, and could not reject at 0.05 (p 0.084: this
// test failed so); an unpaired U test over the same runs gives the slow
// run one rank of twenty. The trimmed t leaves it out of the estimate
// and counts it as the most extreme pair kept in the variance.
func TestAnOutlierAgainstTheChangeCostsOneVote(t *testing.T) {
	d := []float64{0.021, 0.012, 0.031, 0.009, 0.026, -0.22, 0.024, 0.018, 0.035, 0.015}
	r := Rule{Effect: 1, HigherIsBetter: true}
	dec := PairedLogs(d, r)
	if dec.Method != TrimmedT || dec.Verdict != Improved {
		t.Fatalf("one slow run against +2%%: %s %s %+.2f%% (%s)", dec.Method, dec.Verdict, dec.Estimate, dec.Why)
	}
	clean := append(append([]float64(nil), d[:5]...), d[6:]...)
	lo, hi := clean[0], clean[0]
	for _, x := range clean {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if dec.Estimate < pct(lo) || dec.Estimate > pct(hi) {
		t.Errorf("estimate %+.2f%% left the clean pairs' range [%+.2f%%, %+.2f%%]: the outlier pulled it", dec.Estimate, pct(lo), pct(hi))
	}
	// Asked for, the signed-rank test is still there.
	if sr := PairedLogs(d, Rule{Effect: 1, HigherIsBetter: true, Method: Robust}); sr.Method != SignedRank {
		t.Errorf("--method robust took %s", sr.Method)
	}
}

// The trimmed t holds its level in normal A/A pairs and with outliers of
// either sign, where auto would take it: p <= alpha in at most alpha of
// campaigns, within Monte Carlo error, at 0.05 and at 0.005, a level of
// the sequential design's middle looks. Tukey and McLaughlin's n-2g-1
// degrees of freedom failed it (6.6% at 0.05 at 10 normal pairs).
func TestTrimmedTHoldsItsLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const trials = 40000
	for _, n := range []int{6, 8, 10, 14} {
		for _, slow := range []float64{0, 0.05} {
			rejected, deep := 0, 0
			d := make([]float64, n)
			for range trials {
				for i := range d {
					d[i] = 0.014 * rng.NormFloat64()
					if rng.Float64() < slow {
						d[i] += math.Copysign(0.22, rng.NormFloat64())
					}
				}
				m, se, df := trimmed(d)
				p := tP(m, se, df)
				if p <= 0.05 {
					rejected++
				}
				if p <= 0.005 {
					deep++
				}
			}
			rate := float64(rejected) / trials
			if limit := 0.05 + 3*math.Sqrt(0.05*0.95/trials); rate > limit {
				t.Errorf("%d pairs, %.0f%% slow pairs: p <= 0.05 in %.2f%% of A/A campaigns", n, 100*slow, 100*rate)
			}
			if deep, limit := float64(deep)/trials, 0.005+3*math.Sqrt(0.005*0.995/trials); deep > limit {
				t.Errorf("%d pairs, %.0f%% slow pairs: p <= 0.005 in %.3f%% of A/A campaigns", n, 100*slow, 100*deep)
			}
		}
	}
}
