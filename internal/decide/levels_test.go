package decide

import (
	"flag"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var allLevels = flag.Bool("levels.all", false, "TestLevelTableIsTheSimulations recomputes every tabled design (minutes), not a few")

// The table holds what the simulations compute, bit for bit: the tabled
// levels of the default design and of its family splits are recomputed
// here (all of them with -levels.all), so a change to a simulation, its
// seeds or a test a look makes shows up as a table to generate again
// (go generate ./internal/decide).
func TestLevelTableIsTheSimulations(t *testing.T) {
	monteCarlo(t, "simulates a million campaigns a design")
	designs := []TabledDesign{{MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha}, {MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha / 2}, {MinLookPairs, 10, DefaultRule.Alpha}}
	if *allLevels {
		designs = TabledDesigns()
	}
	for _, d := range designs {
		v, ok := levelTable[lookKey{d.MinPairs, d.MaxPairs, d.Alpha}]
		if !ok {
			t.Fatalf("%+v: not in the table", d)
		}
		if got := SimulateOBFLevels(d.MinPairs, d.MaxPairs, d.Alpha); !slices.Equal(got, v.obf) {
			t.Errorf("%+v: tabled spending levels %v, simulated %v: go generate ./internal/decide", d, v.obf, got)
		}
		// A few of the design's patterns of looks not taken (every one
		// with -levels.all): each is a simulation of its own.
		var keys []skipKeyed
		for key := range skipTable {
			if key.lookKey == (lookKey{d.MinPairs, d.MaxPairs, d.Alpha}) {
				keys = append(keys, key)
			}
		}
		slices.SortFunc(keys, func(a, b skipKeyed) int { return strings.Compare(a.skipped, b.skipped) })
		if !*allLevels && len(keys) > 3 {
			keys = keys[:3]
		}
		for _, key := range keys {
			tabled := skipTable[key]
			var skipped []int
			for _, f := range strings.Split(key.skipped, ",") {
				n, _ := strconv.Atoi(f)
				skipped = append(skipped, n)
			}
			if got := SimulateOBFLevelsSkipping(d.MinPairs, d.MaxPairs, d.Alpha, skipped); !slices.Equal(got, tabled) {
				t.Errorf("%+v, looks %v not taken: tabled levels %v, simulated %v: go generate ./internal/decide", d, skipped, tabled, got)
			}
		}
		if d.MaxPairs <= TabledPocockUpTo {
			if got := SimulateLookAlpha(d.MinPairs, d.MaxPairs, d.Alpha); got != v.pocock {
				t.Errorf("%+v: tabled constant level %v, simulated %v: go generate ./internal/decide", d, v.pocock, got)
			}
		}
	}
}

// A campaign whose signed-rank looks are not taken goes on at levels the
// table holds: every pattern of looks the default design (and its splits
// among treatments and metrics) may leave untaken is there, so no look
// and no compare of such a campaign stops for a simulation; and the
// table holds nothing else.
func TestSkippedLooksOfTheDefaultsAreTabled(t *testing.T) {
	skips := TabledSkips(func(d TabledDesign, skipped []int) []float64 {
		return OBFLevelsSkipping(d.MinPairs, d.MaxPairs, d.Alpha, skipped)
	})
	if len(skips) == 0 {
		t.Fatal("the default design leaves no look untaken: the signed-rank test reaches every level?")
	}
	for _, s := range skips {
		if _, ok := skipTable[skipKeyed{lookKey{s.MinPairs, s.MaxPairs, s.Alpha}, SkipKey(s.Skipped)}]; !ok {
			t.Errorf("%+v, looks %v not taken: not in the table: go generate ./internal/decide", s.TabledDesign, s.Skipped)
		}
	}
	if len(skipTable) != len(skips) {
		t.Errorf("the table holds %d patterns of looks not taken, TabledSkips lists %d: go generate ./internal/decide", len(skipTable), len(skips))
	}
}

// The table holds every design it lists and nothing else, the default
// design and its splits among up to four treatments among them, so that
// abbench run's default design, alone or for a family, simulates nothing
// before its first rank (about a second of two cores before the table).
func TestDefaultDesignsSimulateNothing(t *testing.T) {
	listed := TabledDesigns()
	if len(levelTable) != len(listed) {
		t.Errorf("the table holds %d designs, TabledDesigns lists %d: go generate ./internal/decide", len(levelTable), len(listed))
	}
	for _, d := range listed {
		v, ok := levelTable[lookKey{d.MinPairs, d.MaxPairs, d.Alpha}]
		if !ok || len(v.obf) != d.MaxPairs-d.MinPairs+1 {
			t.Errorf("%+v: not in the table, or not a level a look: go generate ./internal/decide", d)
		}
	}
	before := simulations.Load()
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	for k := 2; k <= 4; k++ {
		seq.Family(k)
	}
	LookAlpha(MinLookPairs, 10, DefaultRule.Alpha) // a plan of the constant level's time
	if n := simulations.Load() - before; n > 0 {
		t.Errorf("the default design and its families ran %d simulations, want none (the table's)", n)
	}
	// What the table gives is a copy: a caller that changes it changes no
	// other design's levels.
	seq.LookAlphas[0] = 1
	if again, _ := NewSequential(MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha); again.LookAlphas[0] == 1 {
		t.Error("OBFLevels handed out the table's own slice")
	}
}
