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

// OBFSpending names the error-spending boundary of Lan and DeMets with
// O'Brien and Fleming's spending function over the design's maximum
// number of pairs: by the look at n of at most M pairs it has spent
// 2 - 2 Phi(z_{1-alpha/2} / sqrt(n/M)) of alpha. It spends almost nothing
// early (at 3 of 14 pairs 0.00004), so the last looks test near alpha
// itself and the design keeps most of a fixed design's power, where a
// constant per-look level (Pocock's) spends as much at 3 pairs as at 10.
const OBFSpending = "obf-spending"

// spendingPathValues caps the |t| values a spending boundary's simulation
// holds (paths times looks, 64 MiB of float32): up to 16 looks it takes
// all LookPaths paths, beyond it fewer (81,920 at 198 looks, whose overall
// rate is then alpha within 0.08 percentage points).
const spendingPathValues = 16 * LookPaths

var spendCache sync.Map

// OBFLevels are the per-look levels of OBFSpending for the crossover
// t-tests of pairs in abba order (CrossoverLogs) at every pair count from
// minPairs to maxPairs: at each look, the level at which the A/A
// campaigns that had not yet said changed and now do are the spending
// function's increment, among simulated normal A/A campaigns (fixed
// seeds, as LookAlpha's). A look whose increment is less than one
// simulated campaign tests at the increment itself (a level below any
// the simulation can resolve). A design in levelTable takes its levels
// from there (a copy: the caller may keep and change it); any other is
// simulated the first time it is used, about a second of two cores for
// 14 pairs, which abbench run would spend before its first rank.
func OBFLevels(minPairs, maxPairs int, alpha float64) []float64 {
	if exactOneLook(minPairs, maxPairs) {
		return []float64{alpha}
	}
	key := lookKey{minPairs, maxPairs, alpha}
	if v, ok := levelTable[key]; ok {
		return slices.Clone(v.obf)
	}
	if v, ok := spendCache.Load(key); ok {
		return slices.Clone(v.([]float64))
	}
	v := SimulateOBFLevels(minPairs, maxPairs, alpha)
	spendCache.Store(key, v)
	return slices.Clone(v)
}

// SimulateOBFLevels is OBFLevels computed by its simulation, never read
// from the table: what the table's generator (go generate) and its test
// call.
func SimulateOBFLevels(minPairs, maxPairs int, alpha float64) []float64 {
	if exactOneLook(minPairs, maxPairs) {
		return []float64{alpha}
	}
	simulations.Add(1)
	return spendSim{min: minPairs, max: maxPairs, alpha: alpha}.levels()
}

// skipKeyed is a design's levels with looks skipped, in skipCache.
type skipKeyed struct {
	lookKey
	skipped string
}

var skipCache sync.Map

// OBFLevelsSkipping are OBFLevels of a design whose looks at the pair
// counts skipped are not taken (Sequential.Skipping): the same simulated
// paths, none stopped at a skipped look (its level skippedLevel), and
// each look after it letting the spending function's increments since
// the last look taken cross. Its levels up to the first skipped look are
// OBFLevels'. Every pattern the default design and its splits among
// treatments and metrics may leave untaken is read from skipTable
// (TabledSkips, generated); any other is simulated the first time it is
// used (about a second of two cores for 14 pairs).
func OBFLevelsSkipping(minPairs, maxPairs int, alpha float64, skipped []int) []float64 {
	if len(skipped) == 0 {
		return OBFLevels(minPairs, maxPairs, alpha)
	}
	key := skipKeyed{lookKey{minPairs, maxPairs, alpha}, SkipKey(skipped)}
	if v, ok := skipTable[key]; ok {
		return slices.Clone(v)
	}
	if v, ok := skipCache.Load(key); ok {
		return slices.Clone(v.([]float64))
	}
	v := SimulateOBFLevelsSkipping(minPairs, maxPairs, alpha, skipped)
	skipCache.Store(key, v)
	return slices.Clone(v)
}

// SimulateOBFLevelsSkipping is OBFLevelsSkipping computed by its
// simulation, never read from the table or the cache: what the table's
// generator and its test call.
func SimulateOBFLevelsSkipping(minPairs, maxPairs int, alpha float64, skipped []int) []float64 {
	simulations.Add(1)
	return spendSim{min: minPairs, max: maxPairs, alpha: alpha, skip: skipped}.levels()
}

// exactOneLook says a design has one look whose level is alpha itself:
// it spends the whole alpha, and below 2*CrossoverFrom pairs its test is
// the paired t, exact under the simulation's normal noise, so a
// simulation would only estimate alpha (0.0501 for 0.05, read as a level
// above the design's).
func exactOneLook(minPairs, maxPairs int) bool {
	return minPairs == maxPairs && minPairs < 2*CrossoverFrom
}

// obfSpent is how much of alpha OBFSpending has spent by information
// fraction t (pairs over the maximum).
func obfSpent(alpha, t float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	return 2 * distuv.UnitNormal.Survival(z/math.Sqrt(t))
}

type spendSim struct {
	min, max int
	alpha    float64
	skip     []int // the pair counts of looks not taken
}

// levels simulates the paths, then walks the looks in order: at each,
// the critical |t| lets the spending increment's share of the paths still
// running cross it, and those paths stop.
func (s spendSim) levels() []float64 {
	looks := s.max - s.min + 1
	chunks := max(1, min(LookPaths, spendingPathValues/looks)/lookChunk)
	paths := chunks * lookChunk
	absT := make([]float32, paths*looks) // path-major
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
				s.chunk(c, absT[c*lookChunk*looks:(c+1)*lookChunk*looks])
			}
		})
	}
	wg.Wait()
	running := make([]bool, paths)
	for i := range running {
		running[i] = true
	}
	levels := make([]float64, looks)
	crossed := 0
	for k := range looks {
		n := s.min + k
		target := int(math.Round(obfSpent(s.alpha, float64(n)/float64(s.max)) * float64(paths)))
		if n == s.max {
			target = int(math.Round(s.alpha * float64(paths)))
		}
		if slices.Contains(s.skip, n) { // not taken: its increment is the next look's
			levels[k] = skippedLevel
			continue
		}
		crit, ok := s.critical(absT, running, k, looks, target-crossed)
		if !ok { // less than one path's worth to spend
			levels[k] = math.Max(obfSpent(s.alpha, float64(n)/float64(s.max))-obfSpent(s.alpha, float64(n-1)/float64(s.max)), 1e-12)
			continue
		}
		levels[k] = 2 * distuv.StudentsT{Sigma: 1, Nu: lookDF(n)}.Survival(crit)
		for p := range running {
			if running[p] && float64(absT[p*looks+k]) > crit {
				running[p] = false
				crossed++
			}
		}
	}
	return levels
}

// critical is the |t| that need of the running paths exceed at look k:
// halfway between the need-th largest and the next.
func (s spendSim) critical(absT []float32, running []bool, k, looks, need int) (float64, bool) {
	if need < 1 {
		return 0, false
	}
	// Only the far tail can hold the need largest: the level never
	// exceeds alpha, so |t| beyond the alpha-level quantile suffices.
	tail := s.tail(absT, running, k, looks, float32(TQuantile(1-s.alpha, lookDF(s.min+k))))
	if len(tail) <= need {
		tail = s.tail(absT, running, k, looks, 0)
	}
	if len(tail) <= need {
		return 0, false
	}
	slices.Sort(tail)
	i := len(tail) - need
	return float64(tail[i]+tail[i-1]) / 2, true
}

// tail is the |t| at look k of the running paths beyond floor.
func (s spendSim) tail(absT []float32, running []bool, k, looks int, floor float32) []float32 {
	var tail []float32
	for p, r := range running {
		if v := absT[p*looks+k]; r && v > floor {
			tail = append(tail, v)
		}
	}
	return tail
}

// chunk fills chunk c's paths' |t| at every look from its own stream.
func (s spendSim) chunk(c int, out []float32) {
	rng := rand.New(rand.NewPCG(0x0bf+uint64(s.min*1000+s.max), uint64(c)))
	looks := s.max - s.min + 1
	for p := range lookChunk {
		var sums lookSums
		for n := 1; n <= s.max; n++ {
			sums.add(rng.NormFloat64())
			if n >= s.min {
				out[p*looks+n-s.min] = float32(sums.t())
			}
		}
	}
}
