package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Three pairs of each order: baseline first 0.03, 0.05 and 0.04, treatment
// first 0.01, -0.01 and 0. The change is the mean of the orders' means
// (0.02), the period effect half their difference (0.02), the standard
// error 0.01/2*sqrt(2/3) from both orders' spread, so t = 4.899 on 4
// degrees of freedom, whose p the closed form of Student's t with 4
// degrees of freedom gives.
func TestCrossoverKnownAnswer(t *testing.T) {
	d := []float64{0.03, 0.01, 0.05, -0.01, 0.04, 0}
	dec := CrossoverLogs(d, ABBA(6), Rule{Method: T, Effect: 1, HigherIsBetter: true})
	if dec.Method != CrossoverT || dec.Period == nil {
		t.Fatalf("method %s, period %v", dec.Method, dec.Period)
	}
	se := 0.01 / 2 * math.Sqrt(2.0/3)
	tt := 0.02 / se
	cdf4 := 0.5 + 3.0/8*tt/math.Sqrt(1+tt*tt/4)*(1-tt*tt/(12*(1+tt*tt/4)))
	near(t, "change", math.Log1p(dec.Estimate/100), 0.02, 1e-12)
	near(t, "p", *dec.P, 2*(1-cdf4), 1e-9)
	near(t, "period", math.Log1p(dec.Period.Estimate/100), 0.02, 1e-12)
	near(t, "period p", dec.Period.P, *dec.P, 1e-12)
	near(t, "lower bound", math.Log1p(dec.Interval[0]/100), 0.02-TQuantile(0.975, 4)*se, 1e-9)
	if plain := PairedLogs(d, Rule{Method: T, Effect: 1}); *plain.P < 10**dec.P {
		t.Errorf("the plain paired t, with the period effect in its variance, has p %.3g: the case shows nothing", *plain.P)
	}
	// Fewer than CrossoverFrom pairs of an order: no crossover, the paired t.
	if dec := CrossoverLogs(d[:5], ABBA(5), Rule{Method: T}); dec.Method != PairedT || dec.Period != nil {
		t.Errorf("5 pairs: %s, period %v", dec.Method, dec.Period)
	}
}

// The second run of each pair 1% faster whichever arm: at 7 pairs (4 of
// one order, 3 of the other) the plain mean is off by a seventh of it and
// its interval too wide; the crossover's interval holds the true change
// 95% of the time, and its estimate is not off.
func TestCrossoverRemovesThePeriodEffect(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const campaigns = 4000
	var plain, cross int
	var bias, plainBias float64
	for range campaigns {
		d := make([]float64, 7)
		for i := range d {
			period := math.Log(1.01)
			if i%2 == 1 { // treatment first: the baseline ran second
				period = -period
			}
			d[i] = period + 0.01*(rng.NormFloat64()-rng.NormFloat64())
		}
		rule := Rule{Method: T, Effect: 1}
		p, c := PairedLogs(d, rule), CrossoverLogs(d, ABBA(7), rule)
		if p.Interval[0] <= 0 && 0 <= p.Interval[1] {
			plain++
		}
		if c.Interval[0] <= 0 && 0 <= c.Interval[1] {
			cross++
		}
		bias += c.Estimate / campaigns
		plainBias += p.Estimate / campaigns
	}
	t.Logf("%d campaigns of 7 pairs: plain paired interval covers %.3f, crossover %.3f; bias %+.3f%%, crossover's %+.3f%%", campaigns, float64(plain)/campaigns, float64(cross)/campaigns, plainBias, bias)
	if r := float64(plain) / campaigns; r < 0.97 {
		t.Errorf("the plain paired interval covers %.3f: the case shows nothing", r)
	}
	if r := float64(cross) / campaigns; math.Abs(r-0.95) > 0.011 {
		t.Errorf("the crossover interval covers %.3f, want 0.95", r)
	}
	if math.Abs(bias) > 0.05 {
		t.Errorf("the crossover estimate is off by %+.3f%% on average", bias)
	}
}
