package history

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ChangePoint is where a series' level moves: the points from Index on
// differ in distribution from those before (within the segment the
// search split).
type ChangePoint struct {
	Index int `json:"index"` // the first point after the change
	// Before and After are the means of the segment's two sides.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Pct is the change of the mean in percent of Before.
	Pct float64 `json:"pct"`
	// P is the permutation test's p of the split (the share of shuffled
	// segments whose best split scored at least as high).
	P float64 `json:"p"`
}

// Detector finds change points by E-Divisive means (Matteson and James,
// "A nonparametric approach for multiple change point analysis of
// multivariate data", JASA 2014): the split of a segment that maximises the
// energy distance between its two sides, kept when a permutation test finds
// it significant, then each side searched again. No kept library implements
// it in Go; this follows the paper's statistic with alpha = 1 (plain
// distances), as Hunter (Fleming et al., ICPE 2023) and MongoDB's signal
// processing do. Results are deterministic for a seed.
type Detector struct {
	// MaxP is the largest permutation p kept (default 0.01).
	MaxP float64
	// Permutations per test (default 499: the smallest p it can give is
	// 1/500).
	Permutations int
	// MinSize is the fewest points on either side of a split (default 3).
	MinSize int
	// MinPct drops changes of the mean smaller than this, in percent
	// (default 0: every significant change).
	MinPct float64
	// Seed seeds the permutations.
	Seed uint64
}

func (d Detector) defaults() Detector {
	if d.MaxP == 0 {
		d.MaxP = 0.01
	}
	if d.Permutations == 0 {
		d.Permutations = 499
	}
	if d.MinSize == 0 {
		d.MinSize = 3
	}
	d.MinSize = max(d.MinSize, 2) // a side's mean distance needs two points
	return d
}

// Find returns the change points of xs, in index order.
func (d Detector) Find(xs []float64) []ChangePoint {
	return d.defaults().find(xs, newRankSplitter, true)
}

// find is Find with the scorer of a segment made by newScorer; stopEarly
// ends a permutation test as soon as its p must exceed MaxP (the test's
// decision is the same; only a kept split's p needs every shuffle).
func (d Detector) find(xs []float64, newScorer func(xs []float64, minSize int) scorer, stopEarly bool) []ChangePoint {
	rng := rand.New(rand.NewPCG(d.Seed, 0x5eed))
	var found []ChangePoint
	// Bisection: a stack of segments [lo, hi) still to search.
	segments := [][2]int{{0, len(xs)}}
	for len(segments) > 0 {
		seg := segments[len(segments)-1]
		segments = segments[:len(segments)-1]
		part := xs[seg[0]:seg[1]]
		sc := newScorer(part, d.MinSize)
		tau, score := sc.best()
		if tau < 0 {
			continue
		}
		p := d.permutationP(sc, score, rng, stopEarly)
		if p > d.MaxP {
			continue
		}
		before, after := mean(part[:tau]), mean(part[tau:])
		cp := ChangePoint{Index: seg[0] + tau, Before: before, After: after, P: p}
		if before != 0 {
			cp.Pct = (after - before) / math.Abs(before) * 100
		}
		if math.Abs(cp.Pct) >= d.MinPct {
			found = append(found, cp)
		}
		// Each side may hold further changes (even when this one was too
		// small to report, since it was significant).
		segments = append(segments, [2]int{seg[0], seg[0] + tau}, [2]int{seg[0] + tau, seg[1]})
	}
	slices.SortFunc(found, func(a, b ChangePoint) int { return a.Index - b.Index })
	return found
}

// permutationP is the share of shuffles of the segment (the observed order
// among them) whose best split scores at least score. With stopEarly it
// returns as soon as that share is above MaxP whatever the shuffles left
// would give: a segment without a change (most of them, in a long series)
// costs a few shuffles, not all.
func (d Detector) permutationP(sc scorer, score float64, rng *rand.Rand, stopEarly bool) float64 {
	atLeast := 1
	for i := range d.Permutations {
		sc.shuffle(rng)
		if _, s := sc.best(); s >= score {
			atLeast++
			if stopEarly && float64(atLeast)/float64(d.Permutations+1) > d.MaxP {
				// The share so far is at least the final one, so above
				// MaxP too.
				return float64(atLeast) / float64(i+2)
			}
		}
	}
	return float64(atLeast) / float64(d.Permutations+1)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
