package decide

import (
	"math"
	"math/rand/v2"
)

// A sequential campaign stops at the first look whose pairs happen to lie
// far enough from zero, so the estimate at a decided change is biased
// away from zero (at a smallest effect of 3%, a true +1% at 1% noise was
// reported as +3.2% on average). StopBias says by about how much at the
// campaign's own noise.

// Bias is the early-stop bias of one decided change: how much, on
// average, campaigns of the design at the campaign's noise that stop with
// the same verdict overstate the true change, in percentage points.
type Bias struct {
	// PairSD is the noise simulated: the standard deviation of a pair's
	// log ratio as the analysis saw it, in percent.
	PairSD float64 `json:"pair_sd_pct"`
	// AtEstimate is the overstatement when the true change is the
	// estimate; AtEffect when it is the smallest effect of interest. The
	// smaller the true change, the larger the bias: the first is a floor
	// for any change below the estimate.
	AtEstimate float64 `json:"at_estimate_pct"`
	AtEffect   float64 `json:"at_smallest_effect_pct"`
}

// biasCampaigns is the number of simulated campaigns behind a bias (fixed
// seed): its error is a few hundredths of a point at 1% noise.
const biasCampaigns = 2000

// StopBias is the bias of dec, a decided change of the design over the
// pairs d (baseFirst their order), simulated with normal pairs at the
// noise d shows; nil for any other verdict or pairs without noise.
func (s *Sequential) StopBias(d []float64, baseFirst []bool, dec Decision, r Rule) *Bias {
	if dec.Verdict != Improved && dec.Verdict != Regressed || dec.N < 2 {
		return nil
	}
	sd := pairSD(d[:dec.N], baseFirst[:dec.N])
	if sd == 0 {
		return nil
	}
	r = r.defaults()
	sim := biasSim{seq: s, rule: r, verdict: dec.Verdict, sd: sd, sign: math.Copysign(1, dec.est)}
	sim.draw()
	return &Bias{PairSD: 100 * sd,
		AtEstimate: sim.overstatement(math.Abs(dec.est)),
		AtEffect:   sim.overstatement(math.Log1p(r.Effect / 100))}
}

// pairSD is the noise of the pairs' log ratios as the analysis sees it:
// pooled within the orders where the crossover applies.
func pairSD(d []float64, baseFirst []bool) float64 {
	if _, _, se, _, ok := crossover(d, baseFirst); ok {
		bt, tb := orders(d, baseFirst)
		return se * 2 / math.Sqrt(1/float64(len(bt))+1/float64(len(tb)))
	}
	_, sd := meanSD(d)
	return sd
}

// biasSim holds the standard normal draws of the simulated campaigns.
type biasSim struct {
	seq     *Sequential
	rule    Rule
	verdict string
	sd      float64
	sign    float64 // the direction of the change
	z       [][]float64
}

func (b *biasSim) draw() {
	rng := rand.New(rand.NewPCG(0xb1a5, uint64(b.seq.MaxPairs)))
	b.z = make([][]float64, biasCampaigns)
	for i := range b.z {
		b.z[i] = make([]float64, b.seq.MaxPairs)
		for j := range b.z[i] {
			b.z[i][j] = rng.NormFloat64()
		}
	}
}

// overstatement is the mean |estimate| minus |true change|, in percent,
// of the simulated campaigns at a true change of theta (log scale, the
// decision's direction) that stop with the verdict (0 when none does).
func (b *biasSim) overstatement(theta float64) float64 {
	baseFirst := ABBA(b.seq.MaxPairs)
	d := make([]float64, b.seq.MaxPairs)
	var sum float64
	var n int
	for _, z := range b.z {
		for j := range d {
			d[j] = b.sign*theta + b.sd*z[j]
		}
		if dec, _ := b.seq.stop(d, baseFirst, b.rule); dec.Verdict == b.verdict {
			sum += math.Abs(dec.Estimate)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum/float64(n) - math.Abs(pct(b.sign*theta))
}
