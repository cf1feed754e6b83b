package decide

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestValidationSimulatesTheDrawnOrder: the validation's campaigns run
// in the order abbench run draws from a campaign's seed (the first pair
// of blocks AB, BA, each later pair abba or baab), not the fixed
// alternation, and every order is balanced at every even count of
// pairs, as the crossover and the looks' levels assume. It failed on the
// fixed alternation: all 400 campaigns ran decide.ABBA's order.
func TestValidationSimulatesTheDrawnOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fixed, orders := 0, map[string]bool{}
	for range 400 {
		c := simulate(Models[0], rng, 0)
		if slices.Equal(c.BaseFirst, ABBA(CampaignPairs)) {
			fixed++
		}
		key := ""
		first := 0
		for i, b := range c.BaseFirst {
			if b {
				first++
				key += "A"
			} else {
				key += "B"
			}
			if i%2 == 1 && first != (i+1)/2 {
				t.Fatalf("order %s: %d of the first %d pairs ran the baseline first, want half", key, first, i+1)
			}
		}
		if !c.BaseFirst[0] || c.BaseFirst[1] {
			t.Fatalf("order %s: the first pair of blocks is AB, BA", key)
		}
		orders[key] = true
	}
	// 6 pairs of blocks drawn: 64 orders, the fixed one 1 in 64.
	if fixed > 30 || len(orders) < 40 {
		t.Errorf("%d of 400 simulated campaigns ran the fixed alternation, %d orders in all: the validation does not draw the order", fixed, len(orders))
	}
}

// TestCarryOverFollowsTheDrawnOrder: the carry-over model speeds up the
// run after a treatment run, wherever the drawn order put it: the same
// draws under two orders differ by 1% exactly after the runs treated in
// one and not the other.
func TestCarryOverFollowsTheDrawnOrder(t *testing.T) {
	var carry Model
	for _, m := range Models {
		if m.Name == "carry-over: the run after a treatment run 1% faster, CV 1%" {
			carry = m
		}
	}
	if carry.Draw == nil {
		t.Fatal("no carry-over model")
	}
	a, b := treatedRuns(DrawnABBA(CampaignPairs, 3), 1), treatedRuns(ABBA(CampaignPairs), 1)
	if slices.Equal(a, b) {
		t.Fatal("seed 3 draws the fixed alternation: pick another")
	}
	ea, eb := carry.Draw(rand.New(rand.NewPCG(5, 6)), a), carry.Draw(rand.New(rand.NewPCG(5, 6)), b)
	for j := 1; j < len(a); j++ {
		var want float64
		switch {
		case a[j-1] && !b[j-1]:
			want = 0.00995 // log 1.01
		case b[j-1] && !a[j-1]:
			want = -0.00995
		}
		if got := ea[j] - eb[j]; got < want-1e-4 || got > want+1e-4 {
			t.Errorf("run %d: the orders' noise differs by %.5f, want %.5f (treated before it: %v, %v)", j, got, want, a[j-1], b[j-1])
		}
	}
}

// The carry-over model's shortfall of coverage is a bias of the drawn
// order, not a variance: each switch between abba and baab puts the run
// after a treatment run on a baseline run once more than on a treatment
// run, so a 14-pair A/A campaign's crossover estimate is off by about
// -1%/14 a switch (-0.06% at one, -0.43% at six), where under normal
// noise it is off by nothing whatever the switches. A variance cannot
// take it in (docs/statistics.md, the validation table: a known gap).
func TestCarryOverIsBiasedBySwitchesOfTheDrawnOrder(t *testing.T) {
	byName := map[string]Model{}
	for _, m := range Models {
		byName[m.Name] = m
	}
	mean := func(m Model) (few, many float64) {
		rng := rand.New(rand.NewPCG(1, 2))
		var sum, count [2]float64
		for range 20000 {
			c := simulate(m, rng, 0)
			switches := 0
			for u := 2; u < len(c.BaseFirst); u += 2 {
				if c.BaseFirst[u] != c.BaseFirst[u-2] {
					switches++
				}
			}
			change, _, _, _, _ := crossover(c.D, c.BaseFirst)
			if g := map[bool]int{true: 0, false: 1}[switches <= 1]; switches <= 1 || switches >= 5 {
				sum[g] += change
				count[g]++
			}
		}
		return 100 * sum[0] / count[0], 100 * sum[1] / count[1]
	}
	few, many := mean(byName["carry-over: the run after a treatment run 1% faster, CV 1%"])
	t.Logf("carry-over: %+.3f%% at 0-1 switches, %+.3f%% at 5-6", few, many)
	if !(many-few < -0.25) {
		t.Errorf("carry-over: %+.3f%% at 0-1 switches, %+.3f%% at 5-6: want 5-6 switches off by about -0.3 points more", few, many)
	}
	few, many = mean(byName["normal, CV 1%"])
	if math.Abs(many-few) > 0.05 {
		t.Errorf("normal noise: %+.3f%% at 0-1 switches, %+.3f%% at 5-6: want no bias", few, many)
	}
}
