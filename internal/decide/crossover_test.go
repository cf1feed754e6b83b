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

// Pairs of blocks whose two pairs share an offset (a server state that
// lasts four runs, an allocation that spans blocks of three arms) make
// the crossover's mean vary more than its variance within each order
// says, as the two pairs of a pair of blocks are of opposite orders: with
// an offset as large as the pairs' own noise, the 95% interval covered
// 90.2% of these 10-pair campaigns (93.7% now). Its variance now holds
// the pairs of blocks' covariance where it is positive.
func TestCrossoverTakesThePairsOfBlocksCovariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	const trials = 4000
	held := 0
	for range trials {
		baseFirst := DrawnABBA(10, rng.Uint64())
		d := make([]float64, 10)
		shared := 0.0
		for i := range d {
			if i%2 == 0 {
				shared = 0.01 * rng.NormFloat64()
			}
			d[i] = 0.02 + shared + 0.01*rng.NormFloat64()
		}
		dec := CrossoverLogs(d, baseFirst, Rule{Alpha: 0.05, Effect: 1, Method: T})
		if dec.Interval[0] <= 2 && 2 <= dec.Interval[1] {
			held++
		}
	}
	cover := float64(held) / trials
	t.Logf("the 95%% interval held +2%% in %.1f%% of %d campaigns", 100*cover, trials)
	if cover < 0.93 {
		t.Errorf("the 95%% interval held +2%% in %.1f%% of %d campaigns, want at least 93%%", 100*cover, trials)
	}
}
