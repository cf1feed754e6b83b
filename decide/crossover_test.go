package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Two pairs of each order: baseline first 0.03 and 0.05, treatment first
// 0.01 and -0.01. The change is the mean of the orders' means (0.02), the
// period effect half their difference (0.02), the standard error
// sqrt(0.0002)/2 from both orders' spread, so t = 2.828 on 2 degrees of
// freedom: p = 1 - 2.828/sqrt(10) = 0.10557.
func TestCrossoverKnownAnswer(t *testing.T) {
	d := []float64{0.03, 0.01, 0.05, -0.01}
	dec := CrossoverLogs(d, ABBA(4), Rule{Method: T, Effect: 1, HigherIsBetter: true})
	if dec.Method != CrossoverT || dec.Period == nil {
		t.Fatalf("method %s, period %v", dec.Method, dec.Period)
	}
	near(t, "change", math.Log1p(dec.Estimate/100), 0.02, 1e-12)
	near(t, "p", *dec.P, 1-2*math.Sqrt2/math.Sqrt(10), 1e-9)
	near(t, "period", math.Log1p(dec.Period.Estimate/100), 0.02, 1e-12)
	near(t, "period p", dec.Period.P, *dec.P, 1e-12)
	q := TQuantile(0.975, 2)
	near(t, "lower bound", math.Log1p(dec.Interval[0]/100), 0.02-q*math.Sqrt(0.0002)/2, 1e-9)
	if plain := PairedLogs(d, Rule{Method: T, Effect: 1}); *plain.P < 0.2 {
		t.Errorf("the plain paired t, with the period effect in its variance, has p %.3f: the case shows nothing", *plain.P)
	}
	// One pair of an order: no crossover, the paired t.
	if dec := CrossoverLogs(d[:3], ABBA(3), Rule{Method: T}); dec.Method != PairedT || dec.Period != nil {
		t.Errorf("3 pairs: %s, period %v", dec.Method, dec.Period)
	}
}

// The second run of each pair 1% faster whichever arm: at 5 pairs (3 of
// one order, 2 of the other) the plain mean is off by a fifth of it and
// its interval too wide (coverage 97.5%); the crossover's interval holds
// the true change 95% of the time.
func TestCrossoverRemovesThePeriodEffect(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const campaigns = 4000
	var plain, cross int
	var bias float64
	for range campaigns {
		d := make([]float64, 5)
		for i := range d {
			period := math.Log(1.01)
			if i%2 == 1 { // treatment first: the baseline ran second
				period = -period
			}
			d[i] = period + 0.01*(rng.NormFloat64()-rng.NormFloat64())
		}
		rule := Rule{Method: T, Effect: 1}
		p, c := PairedLogs(d, rule), CrossoverLogs(d, ABBA(5), rule)
		if p.Interval[0] <= 0 && 0 <= p.Interval[1] {
			plain++
		}
		if c.Interval[0] <= 0 && 0 <= c.Interval[1] {
			cross++
		}
		bias += c.Estimate / campaigns
	}
	t.Logf("%d campaigns of 5 pairs: plain paired interval covers %.3f, crossover %.3f; crossover bias %+.3f%%", campaigns, float64(plain)/campaigns, float64(cross)/campaigns, bias)
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
