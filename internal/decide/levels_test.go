package decide

import (
	"flag"
	"slices"
	"testing"
)

var allLevels = flag.Bool("levels.all", false, "TestLevelTableIsTheSimulations recomputes every tabled design (minutes), not a few")

// The table holds what the simulations compute, bit for bit: the tabled
// levels of the default design and of its family splits are recomputed
// here (all of them with -levels.all), so a change to a simulation, its
// seeds or a test a look makes shows up as a table to generate again
// (go generate ./internal/decide).
func TestLevelTableIsTheSimulations(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a million campaigns a design: go test without -short runs it")
	}
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
		if d.MaxPairs <= TabledPocockUpTo {
			if got := SimulateLookAlpha(d.MinPairs, d.MaxPairs, d.Alpha); got != v.pocock {
				t.Errorf("%+v: tabled constant level %v, simulated %v: go generate ./internal/decide", d, v.pocock, got)
			}
		}
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
