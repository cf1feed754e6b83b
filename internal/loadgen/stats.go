package loadgen

import (
	"math"
	"slices"
)

// Percentiles are the percentiles a record gives of each latency, besides
// the mean, median and standard deviation (vLLM's names: p99_ttft_ms).
var Percentiles = []float64{50, 90, 95, 99}

// dist is a latency's distribution in milliseconds.
type dist struct {
	Mean, Median, Std float64
	P                 []float64 // at Percentiles
}

// distOf summarises v (milliseconds) as numpy would: the population
// standard deviation, percentiles by linear interpolation; all zero for
// no values, as vLLM writes them. It sorts v in place: a copy of a
// million latencies would be 8 MB more.
func distOf(v []float64) dist {
	d := dist{P: make([]float64, len(Percentiles))}
	if len(v) == 0 {
		return d
	}
	s := v
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	d.Mean = sum / float64(len(s))
	var sq float64
	for _, x := range s {
		sq += (x - d.Mean) * (x - d.Mean)
	}
	d.Std = math.Sqrt(sq / float64(len(s)))
	d.Median = percentile(s, 50)
	for i, q := range Percentiles {
		d.P[i] = percentile(s, q)
	}
	return d
}

// percentile is the q-th percentile of sorted, interpolating linearly
// between the closest ranks (numpy's default).
func percentile(sorted []float64, q float64) float64 {
	pos := q / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}
