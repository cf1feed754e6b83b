package main

import (
	"math"
	"slices"
)

// describe is the mean, median, population standard deviation and 99th
// percentile of v (not empty), as vLLM's benchmark client reports them:
// the percentile interpolates linearly between the two nearest ranks, as
// numpy's does.
func describe(v []float64) (mean, median, std, p99 float64) {
	n := len(v)
	for _, x := range v {
		mean += x
	}
	mean /= float64(n)
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	std = math.Sqrt(ss / float64(n))
	s := slices.Sorted(slices.Values(v))
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return mean, median, std, percentile(s, 99)
}

// percentile is the pct percentile of sorted s, linear between ranks.
func percentile(s []float64, pct float64) float64 {
	rank := pct / 100 * float64(len(s)-1)
	k := int(rank)
	if f := rank - float64(k); k+1 < len(s) && f != 0 {
		return s[k] + f*(s[k+1]-s[k])
	}
	return s[k]
}
