package decide

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
)

// skippedLevel is the level a spending design's skipped look is said to
// test at: none, below any p a test gives, so the stagewise ordering
// sees no crossing there (a boundary far out on the normal scale).
const skippedLevel = 1e-15

// signedRankFloor is the smallest p the exact signed-rank test can give
// over d: all its nonzero ratios of one sign, 2/2^n. At 6 pairs it is
// 0.031, at 8 0.0078, above the default design's levels there (0.0020
// to 0.0060): such a look cannot reject whatever the pairs.
func signedRankFloor(d []float64) float64 {
	n := 0
	for _, x := range d {
		if x != 0 {
			n++
		}
	}
	return signedRankFloorOf(n)
}

// signedRankFloorOf is signedRankFloor of n nonzero ratios.
func signedRankFloorOf(n int) float64 {
	return math.Min(1, math.Pow(2, float64(1-n)))
}

// cannotReject says whether dec, a look of a spending design, is of a
// test that cannot reach the look's level whatever the pairs: the
// signed-rank (an outlier among the pairs) at a look whose level is
// below its smallest p. Such a look is not taken: it spends none of
// alpha, which the looks after it spend instead (Skipping).
func (s *Sequential) cannotReject(d []float64, dec Decision) bool {
	return s.SkipUnreachable && s.Boundary == OBFSpending && dec.Method == SignedRank && signedRankFloor(d) > dec.Alpha
}

// Skipping is the design once the looks at the pair counts skipped were
// not taken: the same spending function, its alpha not spent at those
// looks spent at the looks after them (levels simulated for those looks
// alone, as OBFLevels' are for all of them); a skipped look's level is
// skippedLevel. Only a spending design skips; nil skipped is s itself.
func (s *Sequential) Skipping(skipped []int) *Sequential {
	if len(skipped) == 0 || s.Boundary != OBFSpending {
		return s
	}
	out := *s
	out.Skipped = slices.Clone(skipped)
	out.LookAlphas = OBFLevelsSkipping(s.MinPairs, s.MaxPairs, s.Alpha, skipped)
	return &out
}

// skipWhy is the reason of a look that was not taken.
func (s *Sequential) skipWhy(d []float64, level float64) string {
	return fmt.Sprintf("the signed-rank test (an outlier among the pairs) cannot reach this look's level %s (its smallest p over %d pairs is %s): the look is not taken, and the looks after it spend its share of alpha",
		numfmt.Significant(level, levelDigits), len(d), numfmt.Significant(signedRankFloor(d), levelDigits))
}

// SkipKey names a pattern of skipped looks in a key of skipCache and skipTable.
func SkipKey(skipped []int) string {
	parts := make([]string, len(skipped))
	for i, n := range skipped {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ",")
}
