package campaign

import (
	"slices"
	"testing"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/rundir"
)

// orientations says of each block of arms a, b whether it ran a first.
func orientations(order []string) []bool {
	var fwd []bool
	for i := 0; i+1 < len(order); i += 2 {
		fwd = append(fwd, order[i] == "a")
	}
	return fwd
}

// TestAbbaPairsOfBlocksAreDrawnFromTheSeed: a new plan's abba pairs of
// blocks after the first run abba or baab as its seed draws them: two
// seeds give different orders, one seed the same; each pair of blocks
// holds one block of each orientation (the orders as balanced at every
// look as the fixed alternation's), and the first pair stays abba. Before,
// every campaign ran the fixed a b, b a, a b, ... whatever its seed (the
// plan's seed drove only the random order).
func TestAbbaPairsOfBlocksAreDrawnFromTheSeed(t *testing.T) {
	const blocks = 28
	s1 := DrawnOrder([]string{"a", "b"}, blocks, OrderABBA, 1)
	if !slices.Equal(s1, DrawnOrder([]string{"a", "b"}, blocks, OrderABBA, 1)) {
		t.Fatal("one seed, two orders")
	}
	differ := 0
	for seed := uint64(2); seed < 12; seed++ {
		if !slices.Equal(s1, DrawnOrder([]string{"a", "b"}, blocks, OrderABBA, seed)) {
			differ++
		}
	}
	if differ < 10 {
		t.Errorf("only %d of 10 other seeds drew another order than seed 1's", differ)
	}
	if slices.Equal(s1, Order([]string{"a", "b"}, blocks, OrderABBA, 1)) {
		t.Errorf("seed 1 drew the fixed alternation: %v", s1)
	}
	for seed := range uint64(50) {
		fwd := orientations(DrawnOrder([]string{"a", "b"}, blocks, OrderABBA, seed))
		if !fwd[0] || fwd[1] {
			t.Fatalf("seed %d: the first pair of blocks is not abba: %v", seed, fwd)
		}
		for i := 0; i < blocks; i += 2 {
			if fwd[i] == fwd[i+1] {
				t.Fatalf("seed %d: pair of blocks %d runs one orientation twice: %v", seed, i/2, fwd)
			}
		}
	}
	three := DrawnOrder([]string{"a", "b", "c"}, 6, OrderABBA, 3)
	for i := 0; i < len(three); i += 3 {
		if b := three[i : i+3]; !slices.Equal(b, []string{"a", "b", "c"}) && !slices.Equal(b, []string{"c", "b", "a"}) {
			t.Errorf("three arms: block %v is neither forward nor reversed", b)
		}
	}
	if got := DrawnOrder([]string{"a", "b"}, 4, OrderInterleaved, 1); !slices.Equal(got, Order([]string{"a", "b"}, 4, OrderInterleaved, 1)) {
		t.Errorf("interleaved order drawn: %v", got)
	}
}

// TestPlanRecordsItsDrawnOrder: a plan made now says its abba blocks are
// drawn and runs them as its seed draws; a plan recorded before they were
// (no order_drawn) resumes in the alternating order it recorded.
func TestPlanRecordsItsDrawnOrder(t *testing.T) {
	c := &Config{Scenario: quickstart(t), Launcher: "local", Repeat: 14, Order: OrderABBA, Seed: 1}
	r, err := Plan(c)
	if err != nil {
		t.Fatal(err)
	}
	want := DrawnOrder(c.Scenario.ArmOrder, 14, OrderABBA, 1)
	for i, run := range r.Plan.Runs {
		if run.Arm != want[i] {
			t.Fatalf("run %d is %s, the seed's order %v", i+1, run.Arm, want)
		}
	}
	if !r.Plan.OrderDrawn {
		t.Error("the plan does not say its order is drawn")
	}

	old := begun(t, 14)
	p, err := rundir.ReadPlan(old.Out)
	if err != nil {
		t.Fatal(err)
	}
	fixed := Order(old.Scenario.ArmOrder, 14, OrderABBA, old.Seed)
	p.OrderDrawn = false
	for i := range p.Runs {
		p.Runs[i].Arm, p.Runs[i].Dir = fixed[i], rundir.RunDir(old.Out, i+1, fixed[i])
	}
	resumed := reopenWith(t, old, p)
	for i, run := range resumed.Plan.Runs {
		if run.Arm != fixed[i] {
			t.Fatalf("the old plan resumed with run %d of %s, it recorded %s", i+1, run.Arm, fixed[i])
		}
	}
}

// TestPlanSignsTheFamilyOfMetrics: a sequential campaign compared on
// several metrics signs the family's size with its stop rule, so that
// its looks and every later compare hold each metric to its share of
// alpha, and a plan of another family is another plan.
func TestPlanSignsTheFamilyOfMetrics(t *testing.T) {
	plan := func(metrics int) *rundir.Plan {
		c := &Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, Seed: 1, Until: UntilConclusive, MinPairs: 3, MaxPairs: 14}
		c.Compare.Metrics = metrics
		r, err := Plan(c)
		if err != nil {
			t.Fatal(err)
		}
		r.Plan.ID = "one"
		return r.Plan
	}
	two, one := plan(2), plan(0)
	if rule := two.Sequential.Rule; rule == nil || rule.Metrics != 2 {
		t.Fatalf("the stop rule signs no family of 2 metrics: %+v", rule)
	}
	if two.Ref(1).PlanDigest == one.Ref(1).PlanDigest {
		t.Error("a family of 2 metrics and one metric make one plan digest")
	}
}

// TestDrawnOrderIsTheValidationsOrder: a campaign's drawn order is the one
// the validation table simulates for the same seed (decide.DrawnABBA), so
// what the table says of a verdict is of the order abbench runs.
func TestDrawnOrderIsTheValidationsOrder(t *testing.T) {
	for seed := range uint64(50) {
		got := orientations(DrawnOrder([]string{"a", "b"}, 14, OrderABBA, seed))
		if want := decide.DrawnABBA(14, seed); !slices.Equal(got, want) {
			t.Fatalf("seed %d: the campaign runs %v, the validation simulates %v", seed, got, want)
		}
	}
}
