package history

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// scorer scores the best split of a segment in its current order, and
// shuffles that order for the permutation test.
type scorer interface {
	best() (tau int, q float64)
	shuffle(rng *rand.Rand)
}

// rankSplitter is the scorer Find uses. The energy statistic needs, as each
// point moves from the right side of the split to the left, the sum of its
// distances to the points already on the left and to those still on the
// right. Summing them point by point costs O(n^2) a split, and the
// permutation test asks for hundreds of splits a segment; here a Fenwick
// tree over the points' ranks holds the count and the sum of the points on
// the left below each rank, so the left sum is two prefix queries and the
// right sum is the point's distance to all others (known from the ranks)
// less the left one: O(n log n) a split. A shuffle permutes the ranks.
type rankSplitter struct {
	minSize int
	sorted  []float64 // the values less the smallest, ascending (distances are the same; the sums cancel less)
	order   []int32   // the rank of the point at each position of the current order
	dist    []float64 // dist[r]: the sum of distances from the point of rank r to every other point
	total   float64   // the sum of distances over all pairs
	count   []float64 // the Fenwick tree (1-based): points on the left by rank
	sum     []float64 // and their values' sum
	weights []splitWeights
}

func newRankSplitter(xs []float64, minSize int) scorer {
	n := len(xs)
	s := &rankSplitter{minSize: minSize, order: make([]int32, n), count: make([]float64, n+1), sum: make([]float64, n+1)}
	byValue := make([]int32, n)
	for i := range byValue {
		byValue[i] = int32(i)
	}
	slices.SortStableFunc(byValue, func(a, b int32) int { return cmp.Compare(xs[a], xs[b]) })
	s.sorted = make([]float64, n)
	for r, i := range byValue {
		s.order[i] = int32(r)
		s.sorted[r] = xs[i] - xs[byValue[0]]
	}
	// dist[r] = sum over lower ranks of (v - x) plus over higher ranks of (x - v).
	var all float64
	for _, v := range s.sorted {
		all += v
	}
	s.dist = make([]float64, n)
	var below float64
	for r, v := range s.sorted {
		above := all - below - v
		s.dist[r] = float64(r)*v - below + above - float64(n-1-r)*v
		s.total += s.dist[r]
		below += v
	}
	s.total /= 2
	s.weights = make([]splitWeights, n)
	for tau := minSize; tau <= n-minSize; tau++ {
		s.weights[tau] = weightsOf(tau, n)
	}
	return s
}

func (s *rankSplitter) shuffle(rng *rand.Rand) {
	rng.Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
}

// best is the split tau (the first tau points | the rest, in the current
// order) maximising the scaled energy statistic
// Q = (m n / (m + n)) * (2 E|X-Y| - E|X-X'| - E|Y-Y'|), with at least
// minSize points a side; -1 when the segment is too short.
func (s *rankSplitter) best() (int, float64) {
	n := len(s.order)
	if n < 2*s.minSize {
		return -1, 0
	}
	clear(s.count)
	clear(s.sum)
	var onLeft float64
	sums := splitSums{right: s.total}
	best, bestTau := math.Inf(-1), -1
	for tau := 1; tau <= n-s.minSize; tau++ {
		k := float64(tau - 1) // points on the left before this one moves
		r := s.order[tau-1]
		v := s.sorted[r]
		lower, lowerSum := s.below(r)
		toLeft := lower*v - lowerSum + (onLeft - lowerSum) - (k-lower)*v
		toRight := s.dist[r] - toLeft
		s.insert(r, v)
		onLeft += v
		sums.move(toLeft, toRight)
		if tau < s.minSize {
			continue
		}
		if q := sums.energy(s.weights[tau]); q > best {
			best, bestTau = q, tau
		}
	}
	return bestTau, best
}

// splitSums are a split's sums of distances within its left side, within
// its right side and between them.
type splitSums struct{ left, right, between float64 }

// move moves a point from the right side to the left, given the sums of its
// distances to the left side and to the rest of the right: its pairs with
// the left become left pairs; those with the right were right pairs and
// become between pairs.
func (s *splitSums) move(toLeft, toRight float64) {
	s.between += toRight - toLeft
	s.left += toLeft
	s.right -= toRight
}

// splitWeights turn a split's sums into its scaled energy statistic: the
// sums' weights for the split tau | n - tau, the same for every shuffle.
type splitWeights struct{ between, left, right float64 }

func weightsOf(tau, n int) splitWeights {
	m, r := float64(tau), float64(n-tau)
	scale := m * r / (m + r)
	return splitWeights{between: scale * 2 / (m * r), left: scale / (m * (m - 1) / 2), right: scale / (r * (r - 1) / 2)}
}

// energy is the scaled statistic of the split whose weights are w.
func (s *splitSums) energy(w splitWeights) float64 {
	return w.between*s.between - w.left*s.left - w.right*s.right
}

// below is how many points on the left rank below r, and their sum.
func (s *rankSplitter) below(r int32) (count, sum float64) {
	for i := int(r); i > 0; i &= i - 1 {
		count += s.count[i]
		sum += s.sum[i]
	}
	return count, sum
}

func (s *rankSplitter) insert(r int32, v float64) {
	for i := int(r) + 1; i < len(s.count); i += i & -i {
		s.count[i]++
		s.sum[i] += v
	}
}
