package decide

import (
	"fmt"
	"math"
	"slices"
)

// HolmAdjust is Holm's step-down adjustment of a family of m tests: the
// tests' p in ps (nil for a test of the family that was never made, a
// censored comparison, which counts in m as a test that can reject
// nothing), each adjusted p the largest of min(1, (m-k)·p(k)) over the k
// smallest p up to its own. m below the number of tests made is that
// number. The family's
// chance of any false rejection stays at most alpha when each test
// rejects at adjusted p <= alpha, whatever the tests' dependence.
func HolmAdjust(ps []*float64, m int) []*float64 {
	var idx []int
	for i, p := range ps {
		if p != nil {
			idx = append(idx, i)
		}
	}
	m = max(m, len(idx))
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case *ps[a] < *ps[b]:
			return -1
		case *ps[a] > *ps[b]:
			return 1
		}
		return 0
	})
	out := make([]*float64, len(ps))
	running := 0.0
	for k, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-k)**ps[i]))
		adj := running
		out[i] = &adj
	}
	return out
}

// HolmFamily decides each of ds again at p adjusted by Holm's method for
// a family of m tests (m at least len(ds); untested decisions count),
// naming the family in each reason: so that asking m questions at once
// (the cells of a sweep) does not mean m chances of a false verdict. A
// decision is rebuilt from what it reports (estimate and interval in
// percent) at its own level and smallest effect (r's where it has none),
// so a decision read back from a report decides as it did.
func HolmFamily(ds []Decision, m int, r Rule, family string) []Decision {
	r = r.defaults()
	ps := make([]*float64, len(ds))
	for i := range ds {
		ps[i] = ds[i].P
	}
	adj := HolmAdjust(ps, m)
	out := make([]Decision, len(ds))
	for i, d := range ds {
		out[i] = d
		if adj[i] == nil || d.Method == None {
			continue
		}
		d.est = math.Log1p(d.Estimate / 100)
		if d.Interval != nil {
			d.lo, d.hi = math.Log1p(d.Interval[0]/100), math.Log1p(d.Interval[1]/100)
		}
		d.P = adj[i]
		own := r // each decision at its own level and smallest effect, as it was made
		if d.Alpha > 0 {
			own.Alpha = d.Alpha
		}
		if d.Effect > 0 {
			own.Effect = d.Effect
		}
		out[i] = d.finish(own, d.Interval != nil)
		out[i].Why += fmt.Sprintf(" (p Holm-adjusted for %d %s)", max(m, len(ds)), family)
	}
	return out
}
