package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A campaign stopped improved at its first look, pairs of 0.5% noise:
// StopBias's overstatement at the smallest effect is what campaigns of the
// design at that noise, simulated here with other random numbers, report
// beyond a true change of that effect when they stop improved.
func TestStopBiasIsTheOverstatementOfStoppedCampaigns(t *testing.T) {
	seq, err := NewSequential(MinLookPairs, 10, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	d := []float64{0.055, 0.045, 0.05} // sd 0.005
	dec, n := seq.Decide(d, ABBA(3), r)
	if dec.Verdict != Improved || n != 3 {
		t.Fatalf("%s at %d pairs: %s", dec.Verdict, n, dec.Why)
	}
	b := seq.StopBias(d, ABBA(3), dec, r)
	if b == nil {
		t.Fatal("no bias for a decided change")
	}
	near(t, "pair sd", b.PairSD, 0.5, 1e-9)
	rng := rand.New(rand.NewPCG(77, 1))
	var sum float64
	var stopped int
	for range 4000 {
		x := make([]float64, 10)
		for i := range x {
			x[i] = math.Log1p(0.01) + 0.005*rng.NormFloat64()
		}
		if dec, _ := seq.Decide(x, ABBA(10), r); dec.Verdict == Improved {
			sum += dec.Estimate - 1
			stopped++
		}
	}
	want := sum / float64(stopped)
	t.Logf("at a true +1%%, pair sd 0.5%%: %d of 4000 stop improved, overstating by %+.3f points; StopBias: %+.3f at the smallest effect, %+.3f at the estimate %+.2f%%", stopped, want, b.AtEffect, b.AtEstimate, dec.Estimate)
	near(t, "overstatement at the smallest effect", b.AtEffect, want, 0.06)
	if want < 0.1 || b.AtEstimate < 0 || b.AtEstimate >= b.AtEffect {
		t.Errorf("the bias is not away from zero, or not smaller at the larger estimate: %+v", b)
	}
	if seq.StopBias(d, ABBA(3), PairedLogs(d[:1], r), r) != nil {
		t.Error("a descriptive decision has an early-stop bias")
	}
}
