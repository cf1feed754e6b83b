package history

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// series is n points around 1000 with Gaussian noise of cv (a fraction),
// stepping by step (a fraction) from index at on.
func series(seed uint64, n int, cv, step float64, at int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		level := 1000.0
		if i >= at {
			level *= 1 + step
		}
		xs[i] = level * (1 + cv*rng.NormFloat64())
	}
	return xs
}

// 30 points with a 3% step at index 20 give one change point at 20 (±1);
// 30 points without a step give none. Twenty seeds each, noise 0.5% for the
// step (where its place is sharp: at 1% one series in 20 places it 2 off,
// TestChangePointRates), 1% without.
func TestChangePointStep(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		cps := Detector{Seed: seed}.Find(series(seed, 30, 0.005, -0.03, 20))
		if len(cps) != 1 {
			t.Errorf("seed %d: %d change points %+v, want one near 20", seed, len(cps), cps)
			continue
		}
		if cp := cps[0]; cp.Index < 19 || cp.Index > 21 || cp.Pct > -2 || cp.Pct < -4 {
			t.Errorf("seed %d: change at %d of %.2f%%, want 20±1 of about -3%%", seed, cp.Index, cp.Pct)
		}
	}
}

func TestChangePointNone(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		if cps := (Detector{Seed: seed}).Find(series(seed, 30, 0.01, 0, 0)); len(cps) != 0 {
			t.Errorf("seed %d: change points %+v in a series without a step", seed, cps)
		}
	}
}

// The rates docs/history.md quotes, over 200 seeds at noise 1%: a 3% step
// at 20 of 30 is always found, at 20±1 in at least 93% of series and 20±3
// in 99%; a series without a step shows a change in at most 3% (the test's
// level is 1%; the bisection adds a little).
func TestChangePointRates(t *testing.T) {
	const seeds = 200
	r := detectionRates(seeds, 30, 20, func(xs []float64, seed uint64) []ChangePoint { return Detector{Seed: seed}.Find(xs) })
	t.Logf("%d series: %s", seeds, r)
	if r.missed > 0 || r.off1 > seeds*7/100 || r.off3 > seeds/100 || r.falses > seeds*3/100 {
		t.Fatalf("%s: the detector lost power or its level", r)
	}
}

// rates counts, over seeds series of n points at noise 1% with a 3% step at
// at, those where find found no change, none within 1 or 3 points of the
// step; and over as many series without a step, those where it found one.
type rates struct{ missed, off1, off3, falses int }

func (r rates) String() string {
	return fmt.Sprintf("missed %d, off by more than 1: %d, by more than 3: %d; without a step, a change in %d", r.missed, r.off1, r.off3, r.falses)
}

func detectionRates(seeds uint64, n, at int, find func(xs []float64, seed uint64) []ChangePoint) rates {
	var r rates
	for seed := uint64(1); seed <= seeds; seed++ {
		cps := find(series(seed, n, 0.01, -0.03, at), seed)
		near := func(d int) bool {
			for _, c := range cps {
				if c.Index >= at-d && c.Index <= at+d {
					return true
				}
			}
			return false
		}
		switch {
		case len(cps) == 0:
			r.missed++
		case !near(3):
			r.off3++
			fallthrough
		case !near(1):
			r.off1++
		}
		if len(find(series(seed+1000, n, 0.01, 0, 0), seed)) > 0 {
			r.falses++
		}
	}
	return r
}

// The fast search (rank scorer, permutation tests that stop once they must
// fail) against the search before it (quadratic scorer, every test run to
// its end), on the same series: 30 points as TestChangePointRates, and 200
// (the step at 140; 1,000 points would take the quadratic search minutes).
// Its rates are no worse.
func TestChangePointRatesAgainstQuadratic(t *testing.T) {
	if testing.Short() {
		t.Skip("the quadratic search of 200-point series takes seconds")
	}
	for _, c := range []struct {
		seeds uint64
		n, at int
	}{{200, 30, 20}, {50, 200, 140}} {
		before := detectionRates(c.seeds, c.n, c.at, func(xs []float64, seed uint64) []ChangePoint {
			return Detector{Seed: seed}.defaults().find(xs, newQuadraticSplitter, false)
		})
		after := detectionRates(c.seeds, c.n, c.at, func(xs []float64, seed uint64) []ChangePoint { return Detector{Seed: seed}.Find(xs) })
		t.Logf("%d series of %d points, before: %s", c.seeds, c.n, before)
		t.Logf("%d series of %d points, after:  %s", c.seeds, c.n, after)
		if after.missed > before.missed || after.off1 > before.off1 || after.off3 > before.off3 || after.falses > before.falses {
			t.Errorf("%d points: the fast search's rates are worse", c.n)
		}
	}
}

// Two steps are both found (the bisection searches each side again), and a
// step smaller than MinPct is searched through but not reported.
func TestChangePointTwoStepsAndMinPct(t *testing.T) {
	xs := series(3, 45, 0.005, 0.05, 15)
	for i := 30; i < 45; i++ {
		xs[i] *= 0.9
	}
	cps := Detector{Seed: 3}.Find(xs)
	if len(cps) != 2 || cps[0].Index < 14 || cps[0].Index > 16 || cps[1].Index < 29 || cps[1].Index > 31 {
		t.Fatalf("change points %+v, want near 15 and 30", cps)
	}
	cps = Detector{Seed: 3, MinPct: 6}.Find(xs)
	if len(cps) != 1 || cps[0].Index < 29 || cps[0].Index > 31 {
		t.Fatalf("with MinPct 6: change points %+v, want only the -10%% step near 30", cps)
	}
}

// The incremental split statistic equals the definition computed directly.
func TestBestSplitMatchesDefinition(t *testing.T) {
	xs := series(9, 17, 0.05, 0.1, 8)
	tau, q := newRankSplitter(xs, 3).best()
	bestTau, bestQ := -1, -1e300
	for k := 3; k <= len(xs)-3; k++ {
		l, r := xs[:k], xs[k:]
		var b, wl, wr float64
		for _, x := range l {
			for _, y := range r {
				b += abs(x - y)
			}
		}
		for i := range l {
			for j := i + 1; j < len(l); j++ {
				wl += abs(l[i] - l[j])
			}
		}
		for i := range r {
			for j := i + 1; j < len(r); j++ {
				wr += abs(r[i] - r[j])
			}
		}
		m, n := float64(len(l)), float64(len(r))
		e := 2*b/(m*n) - wl/(m*(m-1)/2) - wr/(n*(n-1)/2)
		if v := m * n / (m + n) * e; v > bestQ {
			bestTau, bestQ = k, v
		}
	}
	if tau != bestTau || abs(q-bestQ) > 1e-9*abs(bestQ) {
		t.Fatalf("best split = %d, %g; the definition gives %d, %g", tau, q, bestTau, bestQ)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
