package decide

import (
	"math"
	"slices"
)

// The robust paired analysis: a heavy-tailed pair (one run 20% slow) moves
// a mean and inflates a standard deviation, but barely moves the
// Hodges-Lehmann estimate (the median of the Walsh averages) or the ranks
// the sign-flip test uses. The price: exact sign-flip p-values are
// discrete, so below 6 pairs no p reaches 0.05 (2/2^n is the smallest) and
// no 95% interval exists.

// walsh returns the sorted Walsh averages (d[i]+d[j])/2, i <= j.
func walsh(d []float64) []float64 {
	w := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return w
}

func hodgesLehmann(d []float64) float64 {
	w := walsh(d)
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}

// signedRankP is the exact two-sided p of the sign-flip permutation test
// on the ranks of |d| (the Wilcoxon signed-rank test): under no change
// every sign is equally likely. Zeros are dropped; tied magnitudes share
// their average rank (ranks are doubled to stay integers).
func signedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmpFloat(math.Abs(nz[a]), math.Abs(nz[b])) })
	rank2 := make([]int, n) // twice the average rank
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[order[j+1]]) == math.Abs(nz[order[i]]) {
			j++
		}
		for k := i; k <= j; k++ {
			rank2[order[k]] = i + j + 2 // (i+1 + j+1) / 2 * 2
		}
		i = j + 1
	}
	total, w := 0, 0
	for i, r := range rank2 {
		total += r
		if nz[i] > 0 {
			w += r
		}
	}
	if n > exactMax {
		return normalSignedRankP(rank2, w)
	}
	dist := signDistribution(rank2, total)
	var le, ge float64
	for s, c := range dist {
		if s <= w {
			le += c
		}
		if s >= w {
			ge += c
		}
	}
	return math.Min(1, 2*math.Min(le, ge))
}

// signDistribution is the probability of each sum of a random subset of
// ranks (each in or out with probability 1/2).
func signDistribution(ranks []int, total int) []float64 {
	dist := make([]float64, total+1)
	dist[0] = 1
	hi := 0
	for _, r := range ranks {
		for s := hi; s >= 0; s-- {
			if dist[s] != 0 {
				dist[s+r] += dist[s] / 2
				dist[s] /= 2
			}
		}
		hi += r
	}
	return dist
}

// signedRankInterval is the distribution-free 1-alpha interval of the
// Hodges-Lehmann estimate: the C-th smallest and largest Walsh averages,
// C the largest count with P(T+ < C) <= alpha/2 (Hollander and Wolfe).
// ok is false when there are too few pairs for that level.
func signedRankInterval(d []float64, alpha float64) (lo, hi float64, ok bool) {
	n := len(d)
	m := n * (n + 1) / 2
	var c int
	if n > exactMax {
		// T+ is nearly normal: mean m/2, variance n(n+1)(2n+1)/24.
		sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
		c = int(math.Floor(float64(m)/2 - normalQuantile(1-alpha/2)*sd))
	} else {
		ranks := make([]int, n)
		for i := range ranks {
			ranks[i] = i + 1
		}
		dist := signDistribution(ranks, m)
		cum := 0.0
		for c < m && cum+dist[c] <= alpha/2 {
			cum += dist[c]
			c++
		}
	}
	if c == 0 {
		return 0, 0, false
	}
	w := walsh(d)
	return w[c-1], w[m-c], true
}

// exactMax is the most pairs the exact sign-flip distribution is computed
// for; beyond, the normal approximation is within any test's precision and
// the exact table would take quadratic memory.
const exactMax = 50

// normalSignedRankP is the two-sided p of the signed-rank statistic w
// (ranks doubled) by the normal approximation with the tie correction.
func normalSignedRankP(rank2 []int, w int) float64 {
	var mean, variance float64
	for _, r := range rank2 {
		mean += float64(r) / 2
		variance += float64(r) * float64(r) / 4
	}
	if variance == 0 {
		return 1
	}
	z := math.Abs(float64(w)-mean) / math.Sqrt(variance)
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// normalQuantile is the standard normal's p quantile.
func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
