package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func quickstart(t *testing.T) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOrder(t *testing.T) {
	if got := Order([]string{"a", "b"}, 4, OrderABBA, 0); !slices.Equal(got, []string{"a", "b", "b", "a", "a", "b", "b", "a"}) {
		t.Fatalf("abba: %v", got)
	}
	if got := Order([]string{"a", "b", "c"}, 2, OrderABBA, 0); !slices.Equal(got, []string{"a", "b", "c", "c", "b", "a"}) {
		t.Fatalf("abba of three arms: %v", got)
	}
	if got := Order([]string{"a", "b"}, 3, OrderInterleaved, 0); !slices.Equal(got, []string{"a", "b", "a", "b", "a", "b"}) {
		t.Fatalf("interleaved: %v", got)
	}
	r1 := Order([]string{"a", "b"}, 5, OrderRandom, 7)
	r2 := Order([]string{"a", "b"}, 5, OrderRandom, 7)
	r3 := Order([]string{"a", "b"}, 5, OrderRandom, 8)
	if !slices.Equal(r1, r2) || slices.Equal(r1, r3) {
		t.Fatalf("random order must follow its seed: %v %v %v", r1, r2, r3)
	}
	count := func(s []string, v string) (n int) {
		for _, x := range s {
			if x == v {
				n++
			}
		}
		return n
	}
	if count(r1, "a") != 5 || count(r1, "b") != 5 {
		t.Fatalf("random order lost runs: %v", r1)
	}
}

// plan plans c and claims its directory, as a command does.
func plan(c *Config) (*Result, error) {
	r, err := Plan(c)
	if err != nil {
		return nil, err
	}
	return r, r.Claim()
}

func TestPlanWritesThePlanAndRefusesAUsedDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "camp")
	c := &Config{Scenario: quickstart(t), Launcher: "local", Repeat: 2, Order: OrderRandom, Seed: 9, Out: out}
	r, err := Plan(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Plan wrote %s before Claim", out)
	}
	if err := r.Claim(); err != nil {
		t.Fatal(err)
	}
	p, err := rundir.ReadPlan(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Runs) != 4 || p.Runs[3].Dir != rundir.RunDir(r.Out, 4, p.Runs[3].Arm) || p.Seed != 9 {
		t.Fatalf("plan: %+v", p)
	}
	if want := Order(c.Scenario.ArmOrder, 2, OrderRandom, 9); p.Runs[0].Arm != want[0] || p.Runs[3].Arm != want[3] {
		t.Errorf("the plan's order %+v is not the seed's %v", p.Runs, want)
	}
	_, err = plan(&Config{Scenario: quickstart(t), Launcher: "local", Repeat: 1, Order: OrderInterleaved, Out: out})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("second campaign into one directory: %v", err)
	}
}

// Every refusal names the field at fault, and comes before anything is
// written.
func TestPlanRefusesBeforeWriting(t *testing.T) {
	s := quickstart(t)
	for _, c := range []struct {
		cfg   Config
		field string
		want  string
	}{
		{Config{Launcher: "pbs", Repeat: 1, Order: OrderInterleaved}, "Launcher", `Launcher "pbs": choose local, slurm or kubernetes`},
		{Config{Launcher: "local", Repeat: 0, Order: OrderInterleaved}, "Repeat", "Repeat 0: must be at least 1"},
		{Config{Launcher: "local", Repeat: 1, Order: "zigzag"}, "Order", `Order "zigzag": choose abba, interleaved, random`},
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA, Warmup: -1}, "Warmup", "Warmup -1: must be 0 or more"},
		{Config{Launcher: "local", Repeat: 5, Order: OrderInterleaved, Calibrate: "nope"}, "Calibrate", `Calibrate "nope": not an arm of`},
		{Config{Launcher: "local", Repeat: 1, Order: OrderInterleaved, Calibrate: "async"}, "Repeat", "Repeat 1: a calibration needs at least 2"},
		{Config{Launcher: "local", Order: OrderABBA, Calibrate: "async", Until: UntilConclusive, MinPairs: 3, MaxPairs: 6}, "Until", "Until and Calibrate: a calibration runs a fixed number"},
		{Config{Launcher: "local", Repeat: 2, Order: OrderABBA, Until: UntilConclusive, MinPairs: 3, MaxPairs: 6}, "Repeat", "Repeat and Until: give one"},
		{Config{Launcher: "local", Order: OrderInterleaved, Until: UntilConclusive, MinPairs: 3, MaxPairs: 6}, "Until", "Until conclusive: needs Order abba"},
		{Config{Launcher: "local", Order: OrderABBA, Until: "forever", MinPairs: 3, MaxPairs: 6}, "Until", `Until "forever": the one condition is "conclusive"`},
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA, PairNodes: true}, "PairNodes", "PairNodes: needs Launcher slurm and Order abba"},
		{Config{Launcher: "local", Order: OrderABBA, Until: UntilConclusive, MinPairs: 2, MaxPairs: 6}, "", "looks from 3 pairs on"},
	} {
		out := filepath.Join(t.TempDir(), "never")
		c.cfg.Scenario, c.cfg.Out = s, out
		_, err := plan(&c.cfg)
		var fe *field.Error
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.want)
		} else if c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field) {
			t.Errorf("%+v: err %#v, want a field error of %s", c.cfg, err, c.field)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused campaign wrote %s", out)
		}
	}
}

func TestTasksPerNode(t *testing.T) {
	s := quickstart(t) // ctx 4, gen 2, frontend 1, client 1 ranks
	if got := tasksPerNode(s); got != 4 {
		t.Fatalf("one node: %d tasks per node, want 4", got)
	}
	s.Launcher.Slurm.Nodes = 2
	if got := tasksPerNode(s); got != 2 {
		t.Fatalf("two nodes: %d, want 2", got)
	}
}

// Two campaigns started into one directory at once: exactly one claims it.
func TestPlanClaimsItsDirectoryAtomically(t *testing.T) {
	s := quickstart(t)
	// Each trial plans four campaigns at once: twenty trials
	// were the package's slowest test, so the quick loop races three.
	trials := 20
	if testing.Short() {
		trials = 3
	}
	for trial := range trials {
		out := filepath.Join(t.TempDir(), fmt.Sprint(trial))
		var wg sync.WaitGroup
		var won atomic.Int32
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := plan(&Config{Scenario: s, Launcher: "local", Repeat: 1, Order: OrderInterleaved, Out: out}); err == nil {
					won.Add(1)
				} else if !errors.Is(err, ErrNotEmpty) {
					t.Errorf("trial %d: %v", trial, err)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("trial %d: %d campaigns claimed one directory", trial, won.Load())
		}
	}
}

// A warm-up block runs before the counted abba blocks, and a sequential
// design plans its most pairs, with no fixed repeat recorded.
func TestPlanOfTheDesign(t *testing.T) {
	r, err := Plan(&Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, Repeat: 2, Warmup: 1, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan.Runs) != 6 || !r.Plan.Runs[1].Warmup || r.Plan.Runs[2].Warmup || r.Plan.Runs[2].Arm != "blocking" {
		t.Errorf("a warm-up block then 2 abba blocks: %+v", r.Plan.Runs)
	}
	r, err = Plan(&Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, Until: UntilConclusive, MinPairs: 3, MaxPairs: 7, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if q := r.Plan.Sequential; q == nil || q.MinPairs != 3 || q.MaxPairs != 7 || len(r.Plan.Runs) != 14 || r.Plan.Repeat != 0 {
		t.Errorf("until conclusive, 3 to 7 pairs: %+v, sequential %+v", r.Plan, r.Plan.Sequential)
	}
}

// A calibration's pairs are the most pairs a campaign planned with it
// runs, within the design's limits.
func TestCalibratedMaxPairs(t *testing.T) {
	for _, c := range []struct{ needed, minPairs, want int }{{7, 3, 7}, {2, 3, 3}, {400, 3, 50}} {
		if got := CalibratedMaxPairs(&compare.Calibration{PairsNeeded: c.needed}, c.minPairs); got != c.want {
			t.Errorf("%d pairs needed, from %d: %d, want %d", c.needed, c.minPairs, got, c.want)
		}
	}
}
