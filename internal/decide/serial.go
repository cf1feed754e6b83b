package decide

import (
	"math"
	"math/rand/v2"
)

// The tests take the pairs' ratios as independent. Runs whose noise
// carries over from one to the next (a machine that heats up over an
// hour, a cache that fills) make neighbouring pairs alike: the variance
// then understates the noise and the interval is too narrow (a fixed
// 10-pair t covered 92-94% with run noise AR(1) 0.5). The neighbours
// that matter most are the two pairs of a pair of blocks (abba, baab):
// four runs in a row, of opposite orders, so the crossover's variance
// within each order never sees their likeness. The crossover takes their
// covariance into its variance where it is positive (unitCovariance);
// a lag-1 autocorrelation over all the pairs is too noisy at these
// counts to correct by, and the report warns on it.

// Serial is the lag-1 autocorrelation of the pairs' ratios around their
// orders' means, and the one-sided permutation p of its being that
// large if the pairs were independent.
type Serial struct {
	Lag1 float64 `json:"lag1"`
	P    float64 `json:"p"`
}

// SerialFrom is the fewest pairs whose autocorrelation is tested: below,
// the permutation test cannot reach 0.05 by much.
const SerialFrom = 6

// serialShuffles is the number of permutations behind Serial's p (fixed
// seed): its error is about 0.005 at 0.05.
const serialShuffles = 2000

// SerialOf is the lag-1 autocorrelation of the pairs' ratios d in block
// order (baseFirst: their order); ok is false below SerialFrom pairs or
// when the residuals have no spread.
func SerialOf(d []float64, baseFirst []bool) (Serial, bool) {
	if len(d) < SerialFrom {
		return Serial{}, false
	}
	e := residuals(d, baseFirst)
	r1, ok := lag1(e)
	if !ok {
		return Serial{}, false
	}
	// Shuffled within each order, as the pairs of one order are alike
	// under no autocorrelation; across orders the residuals are not (each
	// order's sum to zero), and mixing them would make the null
	// autocorrelation negative and the test too eager (8.8% at 5%).
	var at [2][]int
	for i, first := range baseFirst {
		g := map[bool]int{true: 0, false: 1}[first]
		at[g] = append(at[g], i)
	}
	rng := rand.New(rand.NewPCG(0x5e1a1, uint64(len(d))))
	shuffled := append([]float64(nil), e...)
	as := 0
	for range serialShuffles {
		for _, idx := range at {
			rng.Shuffle(len(idx), func(i, j int) {
				shuffled[idx[i]], shuffled[idx[j]] = shuffled[idx[j]], shuffled[idx[i]]
			})
		}
		if r, _ := lag1(shuffled); r >= r1 {
			as++
		}
	}
	return Serial{Lag1: r1, P: float64(as+1) / (serialShuffles + 1)}, true
}

// residuals are the ratios less their order's mean (less the mean of all
// where an order has fewer than CrossoverFrom pairs), so a period effect
// does not read as alternating pairs.
func residuals(d []float64, baseFirst []bool) []float64 {
	bt, tb := orders(d, baseFirst)
	mean := map[bool]float64{}
	if len(bt) >= CrossoverFrom && len(tb) >= CrossoverFrom {
		mean[true], _ = meanSD(bt)
		mean[false], _ = meanSD(tb)
	} else {
		m, _ := meanSD(d)
		mean[true], mean[false] = m, m
	}
	e := make([]float64, len(d))
	for i, x := range d {
		e[i] = x - mean[baseFirst[i]]
	}
	return e
}

func lag1(e []float64) (float64, bool) {
	var num, den float64
	for i, x := range e {
		den += x * x
		if i > 0 {
			num += x * e[i-1]
		}
	}
	if den == 0 || math.IsNaN(den) {
		return 0, false
	}
	return num / den, true
}

// ChangeTrend is the trend of the pairs' ratios d across the campaign
// (block order; baseFirst their order), fitted with a level per order so
// a period effect is no trend: a change that grows or fades while the
// campaign runs, in percent per pair. ok is false below 5 pairs.
func ChangeTrend(d []float64, baseFirst []bool) (Drift, bool) {
	if len(d) < 5 {
		return Drift{}, false
	}
	blocks := make([]float64, len(d))
	for i := range blocks {
		blocks[i] = float64(i)
	}
	x, y := residuals(blocks, baseFirst), residuals(d, baseFirst)
	levels := 2.0
	if bt, tb := orders(d, baseFirst); len(bt) < CrossoverFrom || len(tb) < CrossoverFrom {
		levels = 1
	}
	var sxx, sxy float64
	for i := range x {
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	slope := sxy / sxx
	var sse float64
	for i := range x {
		e := y[i] - slope*x[i]
		sse += e * e
	}
	df := float64(len(d)) - levels - 1
	return Drift{PctPerRun: pct(slope), P: tP(slope, math.Sqrt(sse/df/sxx), df)}, true
}

// unitsOf is the number of whole pairs of blocks (abba or baab: a pair
// of each order) among the pairs whose orders are baseFirst.
func unitsOf(baseFirst []bool) float64 {
	m := 0
	for u := 1; u < len(baseFirst); u += 2 {
		if baseFirst[u] != baseFirst[u-1] {
			m++
		}
	}
	return float64(m)
}

// unitCovariance is the covariance of the two pairs of each pair of
// blocks around their orders' means, where it is positive (0 otherwise):
// the crossover's change is the mean of the orders' means, and each pair
// of blocks puts one pair in each, so their covariance adds to its
// variance. Taken where positive only, it widens an interval whose pairs
// are alike and leaves the rest; a negative estimate at a few pairs of
// blocks is mostly chance, and would narrow the interval below its level.
// Pairs of blocks are told by their pairs' orders (abba: the first pair
// baseline first, the second not; DrawnABBA's and ABBA's both).
func unitCovariance(d []float64, baseFirst []bool) float64 {
	e := residuals(d, baseFirst)
	var sum float64
	m := 0
	for u := 1; u < len(d); u += 2 {
		if baseFirst[u] != baseFirst[u-1] {
			sum += e[u] * e[u-1]
			m++
		}
	}
	if m < 2 || !(sum > 0) {
		return 0
	}
	return sum / float64(m-1)
}
