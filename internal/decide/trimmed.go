package decide

import (
	"math"
	"slices"
)

// The trimmed t: the robust paired analysis auto takes where a pair's
// ratio is an outlier. The signed-rank test gives an outlier pair the
// largest rank, a full vote against a change whatever its size (one slow
// run against a true +2% left 10 pairs unable to reject at 0.05), where
// benchstat's unpaired U test gives the slow run one rank of twenty. The
// trimmed mean leaves the most extreme pairs out of the estimate, and
// the winsorized variance counts each as the most extreme pair kept: Tukey and McLaughlin's one-sample trimmed t, studentized
// like the t-test, so its p is continuous and every look of a sequential
// design can reach its level (the signed-rank's smallest p, 2/2^n, could
// not at 6 to 8 pairs).

// TrimmedT is the trimmed t-test and interval of the pairs' log ratios.
const TrimmedT = "trimmed-t"

// trimmed is the trimmed mean of d (a fifth of the pairs left out at
// each end, at least one: Wilcox's 20%), its standard error from the
// winsorized variance, and its degrees of freedom. Tukey and
// McLaughlin's n-2g-1 let normal A/A pairs reject more often than the
// level (at 0.05 and 0.002: 6.7% and 0.35% with 6 pairs, 6.6% and 0.40%
// with 10; 200,000 campaigns), and the sequential design tests at levels
// down to 0.0002; g fewer, n-3g-1, holds every level at every count
// (3.4% and 0.04% at 6 pairs, 3.5% and 0.04% at 10, 4.8% and 0.15% at
// 14, 4.7% and 0.14% at 30). len(d) is at least RobustFrom.
func trimmed(d []float64) (mean, se, df float64) {
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	g := max(1, n/5)
	h := n - 2*g
	for _, x := range s[g : n-g] {
		mean += x
	}
	mean /= float64(h)
	for i := range g { // winsorized
		s[i], s[n-1-i] = s[g], s[n-1-g]
	}
	_, sw := meanSD(s)
	return mean, sw * math.Sqrt(float64(n)) / float64(h), float64(h - 1 - g)
}
