package history

import (
	"math"
	"math/rand/v2"
	"slices"
)

// quadraticSplitter is the scorer Find used before rankSplitter: every
// split's sums of distances kept by adding a point's distance to every
// other (O(n^2) a split), the shuffles made on the values themselves. It is
// the reference the tests hold the fast scorer and its rates to.
type quadraticSplitter struct {
	xs      []float64
	minSize int
}

func newQuadraticSplitter(xs []float64, minSize int) scorer {
	return &quadraticSplitter{xs: slices.Clone(xs), minSize: minSize}
}

func (s *quadraticSplitter) shuffle(rng *rand.Rand) {
	rng.Shuffle(len(s.xs), func(i, j int) { s.xs[i], s.xs[j] = s.xs[j], s.xs[i] })
}

func (s *quadraticSplitter) best() (int, float64) {
	xs, n := s.xs, len(s.xs)
	if n < 2*s.minSize {
		return -1, 0
	}
	var sums splitSums
	for i := range n {
		for j := i + 1; j < n; j++ {
			sums.right += math.Abs(xs[i] - xs[j])
		}
	}
	best, bestTau := math.Inf(-1), -1
	for tau := 1; tau <= n-s.minSize; tau++ {
		k := tau - 1
		var toLeft, toRight float64
		for j := range k {
			toLeft += math.Abs(xs[k] - xs[j])
		}
		for j := k + 1; j < n; j++ {
			toRight += math.Abs(xs[k] - xs[j])
		}
		sums.move(toLeft, toRight)
		if tau >= s.minSize {
			if q := sums.energy(weightsOf(tau, n)); q > best {
				best, bestTau = q, tau
			}
		}
	}
	return bestTau, best
}
