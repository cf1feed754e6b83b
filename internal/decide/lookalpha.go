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

// LookAlpha is the constant per-look level of the crossover t-tests of
// pairs in abba order (CrossoverLogs) at every pair count from minPairs
// to maxPairs that keeps the overall false verdict rate of normal A/A
// pairs at alpha. The t statistic does not depend on the noise's scale
// nor on a period effect, so one simulation (fixed seeds: the same
// design always gets the same level) serves every metric. A design in
// levelTable takes its level from there; any other is simulated the
// first time it is used.
func LookAlpha(minPairs, maxPairs int, alpha float64) float64 {
	if minPairs >= maxPairs {
		return alpha
	}
	key := lookKey{minPairs, maxPairs, alpha}
	if v, ok := levelTable[key]; ok && v.pocock > 0 {
		return v.pocock
	}
	if v, ok := lookCache.Load(key); ok {
		return v.(float64)
	}
	v := SimulateLookAlpha(minPairs, maxPairs, alpha)
	lookCache.Store(key, v)
	return v
}

// SimulateLookAlpha is LookAlpha computed by its simulation, never read
// from the table: what the table's generator (go generate) and its test
// call.
func SimulateLookAlpha(minPairs, maxPairs int, alpha float64) float64 {
	simulations.Add(1)
	if minPairs >= maxPairs {
		return alpha
	}
	return lookSim{min: minPairs, max: maxPairs, alpha: alpha}.level()
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
		df := lookDF(s.min + i)
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
		var sums lookSums
		below, above := false, false
		for n := 1; n <= s.max; n++ {
			sums.add(x[n-1])
			if n < s.min {
				continue
			}
			i := n - s.min
			absT[i] = sums.t()
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
			p = math.Min(p, 2*distuv.StudentsT{Sigma: 1, Nu: lookDF(s.min + i)}.Survival(t))
		}
	}
	return p
}

// lookDF is the degrees of freedom of the t-test of n pairs in abba order
// (CrossoverLogs): the crossover's n-2 from CrossoverFrom pairs of each
// order, the paired t's n-1 below.
func lookDF(n int) float64 {
	if n/2 >= CrossoverFrom {
		return float64(n - 2)
	}
	return float64(n - 1)
}

// lookSums are the sums of the pairs of each order (baseline first:
// the odd pairs, treatment first: the even ones, as abba blocks
// alternate), their squares, their counts, and the sum of the products
// of each whole pair of blocks' two pairs; last is the latest pair,
// whose partner may not have come yet.
type lookSums struct {
	sum, sumSq, count [2]float64
	prod, last        float64
}

func (s *lookSums) add(x float64) {
	g := int(s.count[0]+s.count[1]) % 2
	s.sum[g] += x
	s.sumSq[g] += x * x
	s.count[g]++
	if g == 1 {
		s.prod += s.last * x
	}
	s.last = x
}

// t is the |t| of CrossoverLogs from the sums: the paired t below
// CrossoverFrom pairs of an order, the crossover t with its pairs of
// blocks' covariance (unitCovariance) from there.
func (s *lookSums) t() float64 {
	sum, sumSq, count := s.sum, s.sumSq, s.count
	n := count[0] + count[1]
	if min(count[0], count[1]) < CrossoverFrom {
		mean := (sum[0] + sum[1]) / n
		v := (sumSq[0] + sumSq[1] - n*mean*mean) / (n - 1)
		return math.Abs(mean) / math.Sqrt(v/n)
	}
	m0, m1 := sum[0]/count[0], sum[1]/count[1]
	pooled := (sumSq[0] - count[0]*m0*m0 + sumSq[1] - count[1]*m1*m1) / (n - 2)
	units, first := count[1], sum[0] // the whole pairs of blocks, the sum of their first pairs
	if count[0] > count[1] {
		first -= s.last
	}
	cov := (s.prod - m1*first - m0*sum[1] + units*m0*m1) / (units - 1)
	if !(cov > 0) {
		cov = 0
	}
	se := math.Sqrt(pooled/count[0]+pooled/count[1]+2*cov*units/(count[0]*count[1])) / 2
	return math.Abs(m0+m1) / 2 / se
}
