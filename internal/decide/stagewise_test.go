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
	// The validation's goals, with their Monte Carlo margin (Row.Misses,
	// Row.Wide): the interval comes back through the look's t, which at a
	// stop of a few pairs, where their spread happened to be small, holds
	// the change a point or so short of 95% (92.5% here).
	if se := math.Sqrt(cover * (1 - cover) / trials); cover < GoalCoverageMin-mcZ*se || cover > GoalCoverageMax+mcZ*se {
		t.Errorf("+2%% at pair sd 1.4%%: the interval held it in %.1f%% of %d campaigns, beyond %.0f-%.0f%% by more than Monte Carlo error", 100*cover, trials, 100*GoalCoverageMin, 100*GoalCoverageMax)
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
	p, lo, hi := seq.stagewise(3, 5, 0)
	near(t, "p at the first look", p, math.Erfc(5/math.Sqrt2), 1e-9)
	near(t, "its interval's lower bound (drift)", lo, (5-1.959964)/math.Sqrt(3), 1e-5)
	near(t, "its interval's upper bound (drift)", hi, (5+1.959964)/math.Sqrt(3), 1e-5)
	atNine, _, _ := seq.stagewise(9, seq.stages(0).bound[9-MinLookPairs]+1e-6, 0)
	if p, _, _ := seq.stagewise(10, 6, 0); p < atNine || p < 100*math.Erfc(6/math.Sqrt2) {
		t.Errorf("a stop at look 10 far beyond its boundary: stagewise p %.4g, below that of a crossing at look 9 (%.4g)", p, atNine)
	}
}

// longUnderShort skips t under go test -short: what it does (a Monte
// Carlo of thousands of campaigns) is seconds of CPU, left to the full
// suite.
func longUnderShort(t *testing.T, what string) {
	t.Helper()
	monteCarlo(t, what)
}

// The stop's interval holds the true change about as often as its level
// says where the pairs leave no doubt of a change, and where the true
// change is the smallest effect. Before, the interval's bounds were
// drifts times est/z, z the normal quantile of the look's t p: at a t of
// 12 with 2 degrees of freedom z is 2.7, and the interval was four times
// the t-interval's width (+5% at pair sd 0.7%: held in every campaign,
// 100%); and the ordering took a look that crossed its boundary for a
// stop, though a look stops with a change only where the estimate also
// reaches the smallest effect (a true +1%: held in 86%, and in 82% with
// the t's own bounds alone).
func TestStopIntervalHoldsItsLevelWhereTheChangeIsClear(t *testing.T) {
	longUnderShort(t, "a Monte Carlo of 1,000 campaigns")
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	const trials = 500
	for _, effect := range []float64{1, 5} {
		rng := rand.New(rand.NewPCG(7, uint64(effect)))
		held := 0
		for range trials {
			d := make([]float64, seq.MaxPairs)
			for i := range d {
				d[i] = math.Log1p(effect/100) + 0.007*rng.NormFloat64()
			}
			dec, _ := seq.Decide(d, ABBA(len(d)), r)
			if !dec.Stagewise || dec.Interval == nil {
				t.Fatalf("+%g%%: the stop's interval is not the stagewise one: %+v", effect, dec)
			}
			if dec.Interval[0] <= effect && effect <= dec.Interval[1] {
				held++
			}
		}
		cover, se := float64(held)/trials, math.Sqrt(0.95*0.05/trials)
		t.Logf("+%g%% at pair sd 0.7%%: the stop's 95%% interval held it in %.1f%% of %d campaigns", effect, 100*cover, trials)
		if cover < 0.95-4*se || cover > 0.95+4*se {
			t.Errorf("+%g%% at pair sd 0.7%%: the stop's 95%% interval held it in %.1f%% of %d campaigns, beyond 95%% by more than %.1f points", effect, 100*cover, trials, 400*se)
		}
	}
}
