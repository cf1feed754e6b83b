package decide

import (
	"slices"
	"sync/atomic"
)

//go:generate go run ./internal/genlevels -out levels_table.go

// tabledLevels are one design's levels as its simulation computes them:
// the constant per-look level (LookAlpha; 0 beyond TabledPocockUpTo
// pairs, where it is simulated when asked for) and the spending
// boundary's levels look by look (OBFLevels).
type tabledLevels struct {
	pocock float64
	obf    []float64
}

// TabledDesign is a design whose levels levelTable holds.
type TabledDesign struct {
	MinPairs, MaxPairs int
	Alpha              float64
}

// TabledMaxPairs are the maximum pair counts whose designs levelTable
// holds: every one up to 20 (the default 18 among them), then the round
// counts a campaign asks for, up to MaxLookPairs.
var TabledMaxPairs = []int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 30, 40, 50, 100, MaxLookPairs}

// TabledAlphas are the alphas levelTable holds a design of: the default
// alone and split among two to four treatments (Family), 0.01 and 0.1.
func TabledAlphas() []float64 {
	var out []float64
	for k := 1; k <= 4; k++ {
		out = append(out, DefaultRule.Alpha/float64(k)) // as Family divides, so the key matches bit for bit
	}
	return append(out, 0.01, 0.1)
}

// TabledPocockUpTo is the most pairs a tabled design holds the constant
// per-look level of (LookAlpha) for: only plans made before the spending
// boundary use it, with at most 10 pairs by default then; its simulation
// of a million campaigns of 200 pairs would take minutes to generate.
const TabledPocockUpTo = 20

// TabledDesigns are the designs levelTable holds: those the defaults and
// the documented options (--max-pairs, --alpha, up to four treatments)
// make from MinLookPairs, so that abbench run starts its first rank
// without a simulation of a million campaigns (a second of two cores for
// 14 pairs, several for 200). The table is generated (go generate, the
// same fixed seeds) and TestLevelTableIsTheSimulations recomputes it.
func TabledDesigns() []TabledDesign {
	var out []TabledDesign
	for _, a := range TabledAlphas() {
		for _, m := range TabledMaxPairs {
			out = append(out, TabledDesign{MinLookPairs, m, a})
		}
	}
	return out
}

// simulations counts the simulations of levels run (SimulateLookAlpha,
// SimulateOBFLevels), so a test can tell a tabled design from one that
// was simulated.
var simulations atomic.Int64

// TabledSkip is a pattern of looks not taken (Sequential.Skipping) of a
// tabled design, whose levels skipTable holds.
type TabledSkip struct {
	TabledDesign
	Skipped []int
}

// TabledSkips are the patterns of looks not taken that skipTable holds:
// for the default maximum at every tabled alpha, each sequence of looks
// the signed-rank test could leave untaken in turn (a look whose level,
// once the looks before it were skipped, is below the test's smallest p
// over that many pairs), so that a campaign whose test changes at a look
// does not stop for a simulation of a million campaigns (a second or two
// of two cores) there, nor does compare of it. levels gives a pattern's
// levels: the table's (OBFLevelsSkipping) or the simulation's (the
// generator).
func TabledSkips(levels func(TabledDesign, []int) []float64) []TabledSkip {
	var out []TabledSkip
	for _, a := range TabledAlphas() {
		out = skipsAfter(TabledDesign{MinLookPairs, DefaultMaxPairs, a}, nil, levels, out)
	}
	return out
}

// skipsAfter appends to out every pattern that extends skipped by a look
// after its last.
func skipsAfter(d TabledDesign, skipped []int, levels func(TabledDesign, []int) []float64, out []TabledSkip) []TabledSkip {
	var at []float64
	if len(skipped) == 0 {
		at = OBFLevels(d.MinPairs, d.MaxPairs, d.Alpha)
	} else {
		at = levels(d, skipped)
	}
	from := d.MinPairs
	if len(skipped) > 0 {
		from = skipped[len(skipped)-1] + 1
	}
	for n := from; n <= d.MaxPairs; n++ {
		if signedRankFloorOf(n) <= at[n-d.MinPairs] {
			continue
		}
		next := append(slices.Clone(skipped), n)
		out = append(out, TabledSkip{d, next})
		out = skipsAfter(d, next, levels, out)
	}
	return out
}
