package decide

import (
	"math"
	"math/rand/v2"
	"testing"
)

// At a spending design's stop the printed p and interval are the
// stagewise ones, at the design's own level: among A/A campaigns p <= u
// in at most u of them, whichever look they stopped at (the futility
// stop, non-binding, makes it conservative), and at a true change the
// interval holds it in at least about 1-alpha of them. Before, the stop
// printed its look's nominal p and the ordinary interval at 0.04 (96%),
// a level no look tested at: the level check failed on that code.
func TestStopPAndIntervalAreStagewise(t *testing.T) {
	longUnderShort(t, "a Monte Carlo of 3,000 campaigns")
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	const trials = 1500
	rng := rand.New(rand.NewPCG(42, 2))
	below := map[float64]int{0.05: 0, 0.2: 0, 0.5: 0}
	held := 0
	for range trials {
		for _, effect := range []float64{0, 0.02} {
			d := make([]float64, seq.MaxPairs)
			for i := range d {
				d[i] = math.Log1p(effect) + 0.014*rng.NormFloat64()
			}
			dec, _ := seq.Decide(d, ABBA(len(d)), r)
			if dec.Alpha != 0.05 || !dec.Stagewise || dec.P == nil || dec.Interval == nil {
				t.Fatalf("the stop's interval at level %g, stagewise %v, p %v, interval %v", dec.Alpha, dec.Stagewise, dec.P, dec.Interval)
			}
			if effect == 0 {
				for u := range below {
					if *dec.P <= u {
						below[u]++
					}
				}
			} else if dec.Interval[0] <= 2 && 2 <= dec.Interval[1] {
				held++
			}
		}
	}
	for u, n := range below {
		rate, se := float64(n)/trials, math.Sqrt(u*(1-u)/trials)
		t.Logf("A/A: p <= %g in %.1f%% of %d campaigns", u, 100*rate, trials)
		if rate > u+3*se {
			t.Errorf("A/A: the stop's p <= %g in %.1f%% of %d campaigns, more than %g%% (beyond %.1f points)", u, 100*rate, trials, 100*u, 300*se)
		}
	}
	cover := float64(held) / trials
	t.Logf("+2%% at pair sd 1.4%%: the interval held it in %.1f%% of %d campaigns", 100*cover, trials)
	if cover < GoalCoverageMin || cover > 0.985 {
		t.Errorf("+2%% at pair sd 1.4%%: the interval held it in %.1f%% of %d campaigns", 100*cover, trials)
	}
}

// A stop at a later look is less extreme than any crossing of an earlier
// look's boundary, so its stagewise p is at least what the looks before
// it spent; at the first look it is the look's own p on the normal scale.
func TestStagewisePOrdersTheLooks(t *testing.T) {
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	p, lo, hi := seq.stagewise(3, 5)
	near(t, "p at the first look", p, math.Erfc(5/math.Sqrt2), 1e-9)
	near(t, "its interval's lower bound (drift)", lo, (5-1.959964)/math.Sqrt(3), 1e-5)
	near(t, "its interval's upper bound (drift)", hi, (5+1.959964)/math.Sqrt(3), 1e-5)
	atNine, _, _ := seq.stagewise(9, seq.stages().bound[9-MinLookPairs]+1e-6)
	if p, _, _ := seq.stagewise(10, 6); p < atNine || p < 100*math.Erfc(6/math.Sqrt2) {
		t.Errorf("a stop at look 10 far beyond its boundary: stagewise p %.4g, below that of a crossing at look 9 (%.4g)", p, atNine)
	}
}

// longUnderShort skips t under go test -short: what it does (a Monte
// Carlo of thousands of campaigns) is seconds of CPU, left to the full
// suite.
func longUnderShort(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what + ": go test without -short runs it")
	}
}
