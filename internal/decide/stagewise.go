package decide

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// The interval and p a spending design prints at its stop. A campaign
// stops where its pairs lie far out, so the ordinary interval at the
// stopping look covers less than its level, and the look's nominal p says
// nothing of the looks before it. The stagewise ordering (Armitage;
// Tsiatis, Rosner and Mehta; Jennison and Turnbull, chapter 8) orders
// every way a campaign can end: a stop at an earlier look beyond its
// boundary is more extreme than any later one, and at one look a larger
// statistic is more extreme. Its p is the chance under no change of an
// end at least as extreme as the one seen; its interval the changes
// under which the end seen is neither in the lowest nor the highest
// alpha/2 of ends. Both hold under the design's stops whatever the look
// the campaign stopped at, as a fixed design's do at its one look.
//
// The statistics are in the normal approximation of the looks' score
// S_n (the sum of n pairs' standardised ratios, a Brownian motion in the
// pairs with drift theta): each look's boundary is the normal quantile of
// its level, so a look's t-test and the approximation cross with equal
// probability under no change. The futility and no-change stops are
// treated as non-binding (the p and interval are those of a design that
// could have gone on), which keeps them conservative.

// stageGridPoints is the number of grid points over a look's
// continuation region (a spacing of at most 0.3 of the one-pair step's
// standard deviation for up to 14 pairs): at Simpson's rule's error of
// h^4, p is exact to about 1e-5, far below any level a look tests at.
const stageGridPoints = 121

// stageKey is one boundary's continuation densities.
type stageKey struct {
	min, max int
	alpha    float64
	boundary string
	skipped  string // the looks not taken (skipKey)
}

var stageCache sync.Map

// stageDensities are, for each look of the design from the first, the
// grid over its continuation region (S between -edge and edge), the
// Simpson weights, and the density under no change of S at each grid
// point for the campaigns that reach the look and go on from it.
type stageDensities struct {
	first int       // pairs at the first look
	bound []float64 // the boundary on the normal scale, look by look
	edge  []float64 // where S stops the campaign with a change, look by look
	s, w  [][]float64
	g     [][]float64
}

// maxStageGridPoints bounds a look's grid where the smallest effect
// widens the continuation region far beyond the boundary (a noise far
// below the smallest effect): a stop's p and interval stay a few
// million operations.
const maxStageGridPoints = 601

// stages is the design's continuation densities. A look stops with a
// change only where its test crosses the boundary and its estimate
// reaches the smallest effect: effect is the smallest effect in units of
// a pair's standard deviation (drift per pair), and a look of n pairs
// goes on while |S| is below n times it too. With effect 0 the
// densities are the boundary's alone, computed once per design (a few
// hundred thousand operations); with an effect, once per stop.
func (s *Sequential) stages(effect float64) *stageDensities {
	key := stageKey{s.MinPairs, s.MaxPairs, s.Alpha, s.Boundary, SkipKey(s.Skipped)}
	if effect <= 0 {
		if v, ok := stageCache.Load(key); ok {
			return v.(*stageDensities)
		}
	}
	looks := s.MaxPairs - s.MinPairs + 1
	st := &stageDensities{first: s.MinPairs, bound: make([]float64, looks), edge: make([]float64, looks),
		s: make([][]float64, looks), w: make([][]float64, looks), g: make([][]float64, looks)}
	for j := range looks {
		n := float64(s.MinPairs + j)
		st.bound[j] = normalQuantile(1 - s.LevelAt(s.MinPairs+j)/2)
		c := math.Max(st.bound[j]*math.Sqrt(n), n*math.Max(effect, 0))
		st.edge[j] = c
		points := min(maxStageGridPoints, max(stageGridPoints, 2*int(math.Ceil(c/0.3))+1))
		st.s[j], st.w[j] = simpson(-c, c, points)
		st.g[j] = make([]float64, points)
		for i, x := range st.s[j] {
			if j == 0 {
				st.g[j][i] = normalDensity(x/math.Sqrt(n)) / math.Sqrt(n)
				continue
			}
			st.g[j][i] = st.step(j-1, x)
		}
	}
	if effect <= 0 {
		stageCache.Store(key, st)
	}
	return st
}

// step is the no-change density at x of S one pair after look j, for
// the campaigns that went on from look j: the integral over look j's
// grid of its density times a standard normal's at x-u. Beyond 9 of
// that normal's standard deviations (below 1e-18 of its density) the
// grid is left out, so a wide grid costs its width, not its square.
// Along the evenly spaced grid the normal's density is a product: from
// one point to the next it gains the factor exp((x-u)h - h²/2), and that
// factor itself the factor exp(-h²), so a row costs two exponentials, not
// one a point (the exponentials were two thirds of a stop's CPU, and of
// the statistics' Monte Carlos). The rounding this adds is a few hundred
// ulps in a sum whose own error is Simpson's, 1e-5.
func (st *stageDensities) step(j int, x float64) float64 {
	grid := st.s[j]
	a, last := grid[0], len(grid)-1
	h := grid[1] - grid[0]
	lo := max(0, int(math.Ceil((x-9-a)/h)))
	hi := min(last, int(math.Floor((x+9-a)/h)))
	for lo <= hi && !(x-grid[lo] < 9) {
		lo++
	}
	for hi >= lo && !(grid[hi]-x < 9) {
		hi--
	}
	if lo > hi {
		return 0
	}
	d := x - grid[lo]
	dens := normalDensity(d)
	ratio := math.Exp(d*h - h*h/2)
	q := math.Exp(-h * h)
	var sum float64
	w, g := st.w[j], st.g[j]
	for k := lo; k <= hi; k++ {
		sum += w[k] * g[k] * dens
		dens *= ratio
		ratio *= q
	}
	return sum
}

// upper is the chance, at drift theta, of an end at least as extreme
// upwards in the stagewise ordering as the statistic z (normal scale) at
// the look of n pairs: a stop with a change at an earlier look's upper
// edge, or reaching this look with a larger statistic.
func (st *stageDensities) upper(n int, z, theta float64) float64 {
	k := n - st.first
	at := func(j int, x float64) float64 { // P(S at look j+1 > x), from look j's continuation
		var sum float64
		nj := float64(st.first + j)
		grid := st.s[j]
		// the drift's likelihood ratio exp(theta u - theta² nj/2) turns the
		// no-change density into theta's; along the even grid it gains
		// the factor exp(theta h) a point (one exponential a look)
		lr := math.Exp(theta*grid[0] - theta*theta*nj/2)
		gain := math.Exp(theta * (grid[1] - grid[0]))
		for i, u := range grid {
			sum += st.w[j][i] * st.g[j][i] * lr * upperTail(x-u-theta)
			lr *= gain
		}
		return sum
	}
	n0 := float64(st.first)
	if k == 0 {
		return upperTail(z - theta*math.Sqrt(n0))
	}
	p := upperTail(st.edge[0]/math.Sqrt(n0) - theta*math.Sqrt(n0)) // a stop at the first look
	for j := 1; j < k; j++ {
		p += at(j-1, st.edge[j])
	}
	return p + at(k-1, z*math.Sqrt(float64(n)))
}

// Stagewise is the stagewise p (two-sided) and 1-Alpha interval, on the
// normal scale of the drift per pair, of a stop at n pairs with statistic
// z; the interval's bounds are drifts, a change being drift times
// sqrt(n) standard errors of the estimate.
func (s *Sequential) stagewise(n int, z, effect float64) (p, lo, hi float64) {
	st := s.stages(effect)
	at0 := st.upper(n, z, 0)
	p = math.Min(1, 2*math.Min(at0, 1-at0))
	step := 1 / math.Sqrt(float64(n))
	f := func(theta float64) float64 { return st.upper(n, z, theta) }
	return p, rootOf(f, s.Alpha/2, z*step-12*step, z*step+12*step), rootOf(f, 1-s.Alpha/2, z*step-12*step, z*step+12*step)
}

// rootOf is the theta in [a, b] at which the rising f reaches target, by
// the Illinois variant of false position (a few evaluations of f, each a
// sum over the looks' grids), to 1e-7.
func rootOf(f func(float64) float64, target, a, b float64) float64 {
	fa, fb := f(a)-target, f(b)-target
	if fa >= 0 {
		return a
	}
	if fb <= 0 {
		return b
	}
	side := 0
	for range 60 {
		m := (a*fb - b*fa) / (fb - fa)
		fm := f(m) - target
		switch {
		case math.Abs(fm) < 1e-9 || b-a < 1e-7:
			return m
		case fm < 0:
			a, fa = m, fm
			if side == -1 {
				fb /= 2
			}
			side = -1
		default:
			b, fb = m, fm
			if side == 1 {
				fa /= 2
			}
			side = 1
		}
	}
	return (a + b) / 2
}

// simpson is n (odd) points from a to b and their Simpson weights.
func simpson(a, b float64, n int) (x, w []float64) {
	h := (b - a) / float64(n-1)
	x, w = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = a + float64(i)*h
		switch {
		case i == 0 || i == n-1:
			w[i] = h / 3
		case i%2 == 1:
			w[i] = 4 * h / 3
		default:
			w[i] = 2 * h / 3
		}
	}
	return x, w
}

func normalDensity(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

// upperTail is P(Z > x) of the standard normal.
func upperTail(x float64) float64 { return math.Erfc(x/math.Sqrt2) / 2 }

// tChange is the change at which the look's t statistic (est-change)/se,
// carried to the normal scale through its own t distribution, lies
// delta above zero: the change a bound delta normal units below the
// look's statistic stands for.
func (dec Decision) tChange(delta float64) float64 {
	se := dec.tSE()
	q := -distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dec.df}.Quantile(upperTail(math.Abs(delta)))
	return dec.est - math.Copysign(q, delta)*se
}

// tSE is the standard error of a t look's estimate, from its interval.
func (dec Decision) tSE() float64 { return (dec.hi - dec.lo) / (2 * TQuantile(1-dec.Alpha/2, dec.df)) }
