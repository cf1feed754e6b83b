package loadgen

import "math"

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
	exact []float64
	// buckets counts the values of bucket base+i at i, from the least
	// bucket seen to the greatest (a slice, not a map: a map's insert
	// was most of a request's counting once sketched); nil until
	// sketched.
	buckets []uint64
	base    int32
	zero    uint64 // values at or below 0: no bucket holds them
	n       uint64
	mean    float64
	m2      float64
}

// The buckets of the positive finite float64s (γ^i from about 5e-324 to
// 1.8e308): a bucket's index is clamped to them, so the buckets of a
// latency never pass 146,000 (1.2 MB) whatever its values; a latency in
// milliseconds of a time.Duration spans about 5,100.
const (
	minBucket = -74_500
	maxBucket = 71_200
)

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
		l.buckets = []uint64{}
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
	k := int32(max(min(math.Ceil(math.Log(v)/sketchLogGamma), maxBucket), minBucket))
	switch {
	case len(l.buckets) == 0:
		l.base, l.buckets = k, append(l.buckets, 0)
	case k < l.base:
		l.buckets = append(make([]uint64, l.base-k, int(l.base-k)+len(l.buckets)), l.buckets...)
		l.base = k
	case int(k-l.base) >= len(l.buckets):
		l.buckets = append(l.buckets, make([]uint64, int(k-l.base)+1-len(l.buckets))...)
	}
	l.buckets[k-l.base]++
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
	for i, c := range l.buckets {
		if c > 0 {
			keys = append(keys, l.base+int32(i))
		}
	}
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
		seen += l.buckets[k-l.base]
		if r < seen {
			return 2 * math.Pow(sketchGamma, float64(k)) / (sketchGamma + 1)
		}
	}
	return 2 * math.Pow(sketchGamma, float64(keys[len(keys)-1])) / (sketchGamma + 1) // not reached: r < n
}
