package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// pairsAR are 10 pairs whose ratios follow an AR(1) of phi (0: independent)
// around a change, with a drift of the change of slope per pair.
func pairsAR(rng *rand.Rand, phi, slope float64) []float64 {
	d := make([]float64, 10)
	x := 0.0
	for i := range d {
		x = phi*x + math.Sqrt(1-phi*phi)*0.014*rng.NormFloat64()
		d[i] = 0.02 + slope*float64(i) + x
	}
	return d
}

// The lag-1 warning holds its level on independent pairs (a shuffle across
// the two orders made it 8.8% at 5%) and finds pairs that carry over.
func TestSerialOfHoldsItsLevelAndFindsCarryOver(t *testing.T) {
	monteCarlo(t, "2000 simulated campaigns")
	rng := rand.New(rand.NewPCG(6, 6))
	rate := func(phi float64) float64 {
		hits := 0
		for range 1000 {
			if s, ok := SerialOf(pairsAR(rng, phi, 0), ABBA(10)); ok && s.P <= 0.05 {
				hits++
			}
		}
		return float64(hits) / 1000
	}
	independent, ar := rate(0), rate(0.7)
	t.Logf("warned in %.1f%% of independent campaigns, %.1f%% of AR(1) 0.7 pairs", 100*independent, 100*ar)
	if independent > 0.05+0.016 || independent < 0.05-0.016 {
		t.Errorf("independent pairs warned in %.1f%%, want 5%%", 100*independent)
	}
	if ar < 0.3 {
		t.Errorf("AR(1) 0.7 pairs warned in only %.1f%%", 100*ar)
	}
	if _, ok := SerialOf(make([]float64, SerialFrom-1), ABBA(SerialFrom-1)); ok {
		t.Error("too few pairs tested")
	}
}

// The trend of the change: seldom on a constant change with a period
// effect (which alternates, and is taken out), often on one that grows.
func TestChangeTrend(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var flat, growing int
	for range 1000 {
		d := pairsAR(rng, 0, 0)
		for i := range d {
			if i%2 == 0 {
				d[i] += 0.02 // period effect: baseline first, the treatment ran second
			} else {
				d[i] -= 0.02
			}
		}
		if tr, ok := ChangeTrend(d, ABBA(10)); ok && tr.P < 0.01 {
			flat++
		}
		if tr, ok := ChangeTrend(pairsAR(rng, 0, 0.005), ABBA(10)); ok && tr.P < 0.01 {
			growing++
		}
	}
	t.Logf("a trend at p < 0.01: %.1f%% of constant changes, %.1f%% of changes growing 0.5%%/pair", float64(flat)/10, float64(growing)/10)
	if flat > 20 {
		t.Errorf("a constant change trended in %.1f%%", float64(flat)/10)
	}
	if growing < 350 {
		t.Errorf("a growing change trended in only %.1f%%", float64(growing)/10)
	}
}

// The levels' simulation tests what a look tests: its |t| from running
// sums is CrossoverLogs' at every pair count, with the pairs of blocks'
// covariance in the crossover's standard error (a level simulated for
// the t without it would be spent by a more conservative test).
func TestLookSumsAreTheCrossoverT(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for range 200 {
		d := make([]float64, 14)
		var sums lookSums
		shared := 0.0
		for i := range d {
			if i%2 == 0 {
				shared = 0.01 * rng.NormFloat64() // a pair of blocks' own offset, shared by its two pairs
			}
			d[i] = shared + 0.01*rng.NormFloat64()
			sums.add(d[i])
			n := i + 1
			if n < 3 {
				continue
			}
			dec := CrossoverLogs(d[:n], ABBA(n), Rule{Alpha: 0.05, Effect: 1, Method: T})
			want := math.Abs(dec.est) / dec.tSE()
			if got := sums.t(); math.Abs(got-want) > 1e-9*want {
				t.Fatalf("%d pairs: simulated |t| %v, the look's %v", n, got, want)
			}
		}
	}
}
