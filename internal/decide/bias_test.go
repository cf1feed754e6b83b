package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A campaign stopped improved at 5 pairs, pairs of 0.4% noise:
// StopBias's overstatement at the smallest effect is what campaigns of the
// design at that noise, simulated here with other random numbers, report
// beyond a true change of that effect when they stop improved.
func TestStopBiasIsTheOverstatementOfStoppedCampaigns(t *testing.T) {
	longUnderShort(t, "a Monte Carlo of 4,000 campaigns")
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	a := 0.004
	d := []float64{0.05 + a, 0.05 - a, 0.05 + a, 0.05 - a, 0.05} // sd 0.004
	dec, n := seq.Decide(d, ABBA(5), r)
	if dec.Verdict != Improved || n != 5 {
		t.Fatalf("%s at %d pairs: %s", dec.Verdict, n, dec.Why)
	}
	b := seq.StopBias(d, ABBA(5), dec, r)
	if b == nil {
		t.Fatal("no bias for a decided change")
	}
	near(t, "pair sd", b.PairSD, 0.4, 1e-9)
	rng := rand.New(rand.NewPCG(77, 1))
	var sum float64
	var stopped int
	for range 4000 {
		x := make([]float64, seq.MaxPairs)
		for i := range x {
			x[i] = math.Log1p(0.01) + 0.004*rng.NormFloat64()
		}
		if dec, _ := seq.Decide(x, ABBA(len(x)), r); dec.Verdict == Improved {
			sum += dec.Estimate - 1
			stopped++
		}
	}
	want := sum / float64(stopped)
	t.Logf("at a true +1%%, pair sd 0.4%%: %d of 4000 stop improved, overstating by %+.3f points; StopBias: %+.3f at the smallest effect, %+.3f at the estimate %+.2f%%", stopped, want, b.AtEffect, b.AtEstimate, dec.Estimate)
	near(t, "overstatement at the smallest effect", b.AtEffect, want, 0.06)
	if want < 0.05 || b.AtEstimate < 0 || b.AtEstimate >= b.AtEffect {
		t.Errorf("the bias is not away from zero, or not smaller at the larger estimate: %+v", b)
	}
	if seq.StopBias(d, ABBA(5), PairedLogs(d[:1], r), r) != nil {
		t.Error("a descriptive decision has an early-stop bias")
	}
}
