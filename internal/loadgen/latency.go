package loadgen

import (
	"math"
	"slices"
)

// exactLatencies is how many values of one latency a run keeps exactly
// (8 B each): the percentiles of a run of up to this many are numpy's of
// every value; past it the values go into a sketch. A variable for the
// tests, which lower it.
var exactLatencies = 100_000

// SketchRelativeError bounds how far a percentile of a sketched latency
// is from the value of its rank: at most this fraction of it. The sketch
// keeps a count per bucket of [γ^(i-1), γ^i) with γ = (1+e)/(1-e) and
// says a bucket's values are 2γ^i/(γ+1), within e of each.
const SketchRelativeError = 0.005

var (
	sketchGamma    = (1 + SketchRelativeError) / (1 - SketchRelativeError)
	sketchLogGamma = math.Log(sketchGamma)
)

// latency collects one latency's values (milliseconds) as a run's
// requests end: exactly up to exactLatencies values, then as counts in
// log buckets, whose memory grows with the logarithm of the values'
// range and not with their number. The mean and standard deviation are
// of every value (Welford's running sums) once sketched.
type latency struct {
	exact   []float64
	buckets map[int32]uint64 // nil until sketched
	zero    uint64           // values at or below 0: no bucket holds them
	n       uint64
	mean    float64
	m2      float64
}

func (l *latency) add(v float64) {
	l.n++
	d := v - l.mean
	l.mean += d / float64(l.n)
	l.m2 += d * (v - l.mean)
	if l.buckets == nil {
		if len(l.exact) < exactLatencies {
			l.exact = append(l.exact, v)
			return
		}
		l.buckets = map[int32]uint64{}
		for _, x := range l.exact {
			l.bucket(x)
		}
		l.exact = nil
	}
	l.bucket(v)
}

func (l *latency) bucket(v float64) {
	if v <= 0 || math.IsNaN(v) {
		l.zero++
		return
	}
	l.buckets[int32(math.Ceil(math.Log(v)/sketchLogGamma))]++
}

// sketched says whether the percentiles are the sketch's.
func (l *latency) sketched() bool { return l.buckets != nil }

// dist summarises the values: distOf's figures while they are exact.
func (l *latency) dist() dist {
	if !l.sketched() {
		return distOf(l.exact)
	}
	d := dist{Mean: l.mean, Std: math.Sqrt(l.m2 / float64(l.n)), P: make([]float64, len(Percentiles))}
	keys := make([]int32, 0, len(l.buckets))
	for k := range l.buckets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	d.Median = l.percentile(keys, 50)
	for i, q := range Percentiles {
		d.P[i] = l.percentile(keys, q)
	}
	return d
}

// percentile interpolates as percentile does between the estimates of
// the two ranks around q: each within SketchRelativeError of its value,
// so the interpolation is within it of the interpolated values.
func (l *latency) percentile(keys []int32, q float64) float64 {
	pos := q / 100 * float64(l.n-1)
	lo := uint64(math.Floor(pos))
	hi := min(lo+1, l.n-1)
	a, b := l.rank(keys, lo), l.rank(keys, hi)
	return a + (b-a)*(pos-float64(lo))
}

// rank is the estimate of the value of rank r (from 0) in sorted order.
func (l *latency) rank(keys []int32, r uint64) float64 {
	if r < l.zero {
		return 0
	}
	seen := l.zero
	for _, k := range keys {
		seen += l.buckets[k]
		if r < seen {
			return 2 * math.Pow(sketchGamma, float64(k)) / (sketchGamma + 1)
		}
	}
	return 2 * math.Pow(sketchGamma, float64(keys[len(keys)-1])) / (sketchGamma + 1) // not reached: r < n
}
