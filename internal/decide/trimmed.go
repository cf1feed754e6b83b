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
// each end, at least one: Wilcox's 20%; more where more are outliers,
// trimCount), its standard error from the
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
	g := trimCount(s)
	h := n - 2*g
	for _, x := range s[g : n-g] {
		mean += x
	}
	mean /= float64(h)
	for i := range g { // winsorized
		s[i], s[n-1-i] = s[g], s[n-1-g]
	}
	_, sw := meanSD(s)
	return mean, max(sw*math.Sqrt(float64(n))/float64(h), ordinarySE(d)), float64(h - 1 - g)
}

// ordinarySE is the paired t's standard error over the pairs of d that
// are no outliers (within OutlierZ): the least error the trimmed t
// claims. auto takes the trimmed t where a pair lies beyond OutlierZ
// modified z-scores, which is most often where the other pairs lie close
// together by chance, and the winsorized variance trusts their closeness:
// the trimmed t said a change in 9% of the normal CV 5% A/A campaigns
// that took it, and 13% of those under the shared machine's real runs,
// whose pairs drift together and burst (5.45% A/A for the default
// design, 4,000 campaigns; 4.70% with the floor). Where the outliers are
// real (slow runs), the ordinary pairs' spread is the noise's, about the
// winsorized error, and the floor costs the default design little: with
// 5% of runs 20% slow, +2% found in 91.5% of campaigns against 91.8%,
// +3% in 98.1% against 98.2%. A fixed 10 pairs' interval there covers
// 97.7% (96.8% without it): wider than its level needs, a known gap.
// Referring the floor to its own degrees of freedom (the ordinary
// pairs', more than the trimmed t's) kept that at 96.7% but let the
// shared machine's runs back to 5.2%.
func ordinarySE(d []float64) float64 {
	med, scale := robustScale(d)
	var kept []float64
	for _, x := range d {
		// As beyond flags them: with no spread, any pair off the median.
		if dev := math.Abs(x - med); dev == 0 || scale > 0 && dev/scale <= OutlierZ {
			kept = append(kept, x)
		}
	}
	if len(kept) < 2 {
		return 0
	}
	_, sd := meanSD(kept)
	return sd / math.Sqrt(float64(len(kept)))
}

// trimCount is how many pairs trimmed leaves out at each end of the
// sorted log ratios s: a fifth of them, at least one, or as many as lie
// beyond OutlierZ at either end where that is more, so long as three
// times as many plus one leave a degree of freedom. A fifth alone let
// three slow runs of one arm among 14 pairs (5% of runs 20% slow: one
// campaign in 30) through: the third stayed in the mean, and the
// winsorized variance counted it three times, so +3% went undecided at
// 14 pairs in 84 of 4,000 such campaigns where benchstat's U test, which
// gives a slow run one rank, found it.
func trimCount(s []float64) int {
	n := len(s)
	g := max(1, n/5)
	med, scale := robustScale(s)
	if scale == 0 {
		return g
	}
	low, high := 0, 0
	for _, x := range s {
		switch z := (x - med) / scale; {
		case z < -OutlierZ:
			low++
		case z > OutlierZ:
			high++
		}
	}
	return max(g, min(max(low, high), (n-2)/3))
}
