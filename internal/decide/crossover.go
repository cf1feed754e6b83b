package decide

import "math"

// The crossover analysis of pairs in abba order. A pair's second run may
// differ from its first whatever the arm (warm caches, heat, a server
// that keeps state): the period effect. Alternating the order inside the
// pairs keeps it out of the plain mean only when the orders are equal in
// number, and never out of the variance: each pair's ratio carries it
// with the sign of its order. The two-period crossover takes the change
// as the mean of the two orders' means, and the noise from within each
// order, so the period effect leaves estimate and variance both, at the
// price of one degree of freedom.

// CrossoverT is the crossover t-test and interval of pairs run in both
// orders.
const CrossoverT = "crossover-t"

// Period is a campaign's period effect: how much the second run of a
// pair differs from the first, whichever arm it is.
type Period struct {
	// Estimate is the second run over the first, in percent.
	Estimate float64 `json:"estimate_pct"`
	// Interval is its 1-Alpha interval in percent.
	Interval [2]float64 `json:"interval"`
	P        float64    `json:"p"`
}

// orders splits the pairs' log ratios by order: the pairs whose baseline
// ran first, and those whose treatment did.
func orders(d []float64, baseFirst []bool) (bt, tb []float64) {
	for i, x := range d {
		if baseFirst[i] {
			bt = append(bt, x)
		} else {
			tb = append(tb, x)
		}
	}
	return bt, tb
}

// CrossoverFrom is the fewest pairs of each order the crossover takes
// (6 pairs in abba order). With one pair of an order its ratio enters the
// estimate but not the variance, and a single slow run fakes a change (5%
// of runs 20% slow: 8.7% A/A false verdicts at 3 pairs, where the paired
// t has 2.5%); with two, two pairs of an order alike by chance make the
// variance small (two machine states 3% apart: 6.0% A/A false verdicts
// for the sequential design over 6,000 campaigns, 5.3% from three).
const CrossoverFrom = 3

// crossover is the crossover's change, period effect and the change's
// standard error with its degrees of freedom; ok is false when an order
// has fewer than CrossoverFrom pairs. The error holds the covariance of
// each pair of blocks' two pairs (unitCovariance), which adds to the
// change's variance and takes from the period effect's: the period
// effect's test, at the change's error, is conservative under it.
func crossover(d []float64, baseFirst []bool) (change, period, se, df float64, ok bool) {
	bt, tb := orders(d, baseFirst)
	if len(bt) < CrossoverFrom || len(tb) < CrossoverFrom {
		return 0, 0, 0, 0, false
	}
	mBT, sdBT := meanSD(bt)
	mTB, sdTB := meanSD(tb)
	df = float64(len(d) - 2)
	pooled := (float64(len(bt)-1)*sdBT*sdBT + float64(len(tb)-1)*sdTB*sdTB) / df
	nBT, nTB := float64(len(bt)), float64(len(tb))
	se = math.Sqrt(pooled/nBT+pooled/nTB+2*unitCovariance(d, baseFirst)*unitsOf(baseFirst)/(nBT*nTB)) / 2
	// A pair run baseline first has ratio change+period, the other order
	// change-period.
	return (mBT + mTB) / 2, (mBT - mTB) / 2, se, df, true
}

// CrossoverLogs decides from the log ratios ln(treatment/baseline) of
// pairs in block order, baseFirst saying in which the baseline ran first.
// With CrossoverFrom pairs of each order the paired t is the crossover
// t, and the decision carries the period effect; otherwise, and for the
// signed-rank (which has no crossover form at these pair counts), it is
// PairedLogs.
func CrossoverLogs(d []float64, baseFirst []bool, r Rule) Decision {
	dec := PairedLogs(d, r)
	change, period, se, df, ok := crossover(d, baseFirst)
	if !ok {
		return dec
	}
	r = r.defaults()
	var pe Decision
	pe.setT(period, se, df, r.Alpha)
	dec.Period = &Period{Estimate: pct(period), Interval: [2]float64{pct(pe.lo), pct(pe.hi)}, P: *pe.P}
	if dec.Method != PairedT {
		return dec
	}
	out := Decision{Method: CrossoverT, N: len(d), Alpha: r.Alpha, Effect: r.Effect, est: change, Period: dec.Period}
	out.setT(change, se, df, r.Alpha)
	return out.finish(r, true)
}
