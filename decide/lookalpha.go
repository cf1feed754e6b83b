package decide

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// LookPaths is the number of simulated A/A campaigns behind a per-look
// level. The level is the one at which exactly alpha of them say changed,
// so the overall false-verdict rate at it is alpha within Monte Carlo
// error: sqrt(alpha(1-alpha)/LookPaths), 0.00021 at 0.05 (docs/statistics.md).
const LookPaths = 1 << 20

// lookChunk is how many paths one random stream draws: chunks are the
// unit of work of the goroutines, so the level does not depend on how
// many there are.
const lookChunk = 1 << 14

type lookKey struct {
	min, max int
	alpha    float64
}

var lookCache sync.Map

// LookAlpha is the constant per-look level of paired t-tests at every
// pair count from minPairs to maxPairs that keeps the overall false
// verdict rate of normal A/A pairs at alpha. The t statistic does not
// depend on the noise's scale, so one simulation (fixed seeds: the same
// design always gets the same level) serves every metric.
func LookAlpha(minPairs, maxPairs int, alpha float64) float64 {
	if minPairs >= maxPairs {
		return alpha
	}
	key := lookKey{minPairs, maxPairs, alpha}
	if v, ok := lookCache.Load(key); ok {
		return v.(float64)
	}
	v := lookSim{min: minPairs, max: maxPairs, alpha: alpha}.level()
	lookCache.Store(key, v)
	return v
}

// lookSim simulates A/A campaigns of normal pairs. Each path's smallest
// p over its looks is the highest per-look level that still lets it pass
// without a false verdict, so the level sought is the alpha-quantile of
// those smallest p: computed exactly only for the paths between two
// bounds of it, since the others are counted by comparing |t| with two
// critical values per look.
type lookSim struct {
	min, max int
	alpha    float64
}

func (s lookSim) level() float64 {
	k := int(s.alpha * LookPaths) // the most paths the level may let say changed
	lo, hi := s.alpha/float64(s.max-s.min+1), s.alpha
	for {
		below, between := s.run(lo, hi)
		switch {
		case below >= k: // more than alpha already below Bonferroni's level: look lower
			lo, hi = lo/2, lo
		case below+len(between) <= k: // alpha itself holds (one effective look)
			return hi
		default:
			slices.Sort(between)
			return between[k-below-1]
		}
	}
}

// chunkResult is one chunk's count of paths whose smallest p is at most
// lo and the smallest p of those between lo and hi.
type chunkResult struct {
	below   int
	between []float64
}

func (s lookSim) run(lo, hi float64) (int, []float64) {
	looks := s.max - s.min + 1
	qlo, qhi := make([]float64, looks), make([]float64, looks)
	for i := range looks {
		df := float64(s.min + i - 1)
		qlo[i], qhi[i] = TQuantile(1-lo/2, df), TQuantile(1-hi/2, df)
	}
	chunks := LookPaths / lookChunk
	results := make([]chunkResult, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
				results[c] = s.chunk(c, qlo, qhi, hi)
			}
		})
	}
	wg.Wait()
	below := 0
	var between []float64
	for _, r := range results {
		below += r.below
		between = append(between, r.between...)
	}
	return below, between
}

// chunk simulates the paths of chunk c from their own stream.
func (s lookSim) chunk(c int, qlo, qhi []float64, hi float64) chunkResult {
	rng := rand.New(rand.NewPCG(0x5e9+uint64(s.min*1000+s.max), uint64(c)))
	x := make([]float64, s.max)
	absT := make([]float64, len(qlo))
	var r chunkResult
	for range lookChunk {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		var sum, sumSq float64
		below, above := false, false
		for n := 1; n <= s.max; n++ {
			sum += x[n-1]
			sumSq += x[n-1] * x[n-1]
			if n < s.min {
				continue
			}
			i := n - s.min
			mean := sum / float64(n)
			v := (sumSq - float64(n)*mean*mean) / float64(n-1)
			absT[i] = math.Abs(mean) / math.Sqrt(v/float64(n))
			below = below || absT[i] > qlo[i]
			above = above || absT[i] > qhi[i]
		}
		switch {
		case below:
			r.below++
		case above:
			r.between = append(r.between, s.smallestP(absT, qhi, hi))
		}
	}
	return r
}

// smallestP is the smallest two-sided p of the looks whose |t| passes
// their critical value at hi (the others' p are above hi).
func (s lookSim) smallestP(absT, qhi []float64, hi float64) float64 {
	p := hi
	for i, t := range absT {
		if t > qhi[i] {
			p = math.Min(p, 2*distuv.StudentsT{Sigma: 1, Nu: float64(s.min + i - 1)}.Survival(t))
		}
	}
	return p
}
