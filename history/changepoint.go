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
	d = d.defaults()
	rng := rand.New(rand.NewPCG(d.Seed, 0x5eed))
	var found []ChangePoint
	// Bisection: a stack of segments [lo, hi) still to search.
	segments := [][2]int{{0, len(xs)}}
	for len(segments) > 0 {
		seg := segments[len(segments)-1]
		segments = segments[:len(segments)-1]
		part := xs[seg[0]:seg[1]]
		tau, score := bestSplit(part, d.MinSize)
		if tau < 0 {
			continue
		}
		p := d.permutationP(part, score, rng)
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

// permutationP is the share of shuffles of xs (the observed order among
// them) whose best split scores at least score.
func (d Detector) permutationP(xs []float64, score float64, rng *rand.Rand) float64 {
	shuffled := slices.Clone(xs)
	atLeast := 1
	for range d.Permutations {
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if _, s := bestSplit(shuffled, d.MinSize); s >= score {
			atLeast++
		}
	}
	return float64(atLeast) / float64(d.Permutations+1)
}

// bestSplit is the split tau (xs[:tau] | xs[tau:]) maximising the scaled
// energy statistic Q = (m n / (m + n)) * (2 E|X-Y| - E|X-X'| - E|Y-Y'|),
// with at least minSize points a side; -1 when xs is too short.
func bestSplit(xs []float64, minSize int) (int, float64) {
	n := len(xs)
	if n < 2*minSize {
		return -1, 0
	}
	// within[i][j] partial sums would cost n^2 memory; the sums are kept
	// incrementally instead: moving tau right by one moves one point from
	// the right side to the left.
	var left, right, between float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			right += math.Abs(xs[i] - xs[j])
		}
	}
	best, bestTau := math.Inf(-1), -1
	for tau := 1; tau < n-minSize+1; tau++ {
		k := tau - 1 // the point moving from right to left
		var toLeft, toRight float64
		for j := range k {
			toLeft += math.Abs(xs[k] - xs[j])
		}
		for j := k + 1; j < n; j++ {
			toRight += math.Abs(xs[k] - xs[j])
		}
		// Pairs (j<k, k) were between; they become left. Pairs (k, j>k)
		// were right; they become between.
		between += toRight - toLeft
		left += toLeft
		right -= toRight
		if tau < minSize {
			continue
		}
		m, r := float64(tau), float64(n-tau)
		e := 2*between/(m*r) - left/(m*(m-1)/2) - right/(r*(r-1)/2)
		if q := m * r / (m + r) * e; q > best {
			best, bestTau = q, tau
		}
	}
	return bestTau, best
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
