package campaign

import (
	"errors"
	"fmt"
	"github.com/abbench/abbench/evidence/compare"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

func quickstart(t *testing.T) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Load("../scenarios/quickstart.yaml")
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

func TestPlanWritesThePlanAndRefusesAUsedDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "camp")
	c := &Config{Scenario: quickstart(t), Launcher: "local", Repeat: 2, Order: OrderInterleaved, Out: out}
	r, err := Plan(c)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rundir.ReadPlan(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Runs) != 4 || p.Runs[3].Dir != rundir.RunDir(r.Out, 4, "blocking") || !c.SeedSet {
		t.Fatalf("plan: %+v", p)
	}
	_, err = Plan(&Config{Scenario: quickstart(t), Launcher: "local", Repeat: 1, Order: OrderInterleaved, Out: out})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("second campaign into one directory: %v", err)
	}
}

func TestCheckRefusesBeforeWriting(t *testing.T) {
	s := quickstart(t)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Launcher: "pbs", Repeat: 1, Order: OrderInterleaved}, "choose local or slurm"},
		{Config{Launcher: "local", Repeat: 0, Order: OrderInterleaved}, "at least 1"},
		{Config{Launcher: "local", Repeat: 1, Order: "zigzag"}, "choose abba, interleaved, random"},
		{Config{Launcher: "local", Repeat: 5, Order: OrderInterleaved, Calibrate: "nope"}, "not an arm"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderInterleaved, Calibrate: "async"}, "at least 2"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderInterleaved, Until: UntilConclusive, MinPairs: 3, MaxPairs: 6}, "needs --order abba"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA, Until: UntilConclusive, MinPairs: 2, MaxPairs: 6}, "looks from 3 pairs on"},
		{Config{Launcher: "local", Repeat: 1, Order: OrderABBA, Until: "forever", MinPairs: 3, MaxPairs: 6}, `the one condition is "conclusive"`},
		{Config{Launcher: "local", Repeat: 1, RepeatSet: true, Order: OrderABBA, PairNodes: true}, "--pair-nodes: needs --launcher slurm"},
	} {
		out := filepath.Join(t.TempDir(), "never")
		c.cfg.Scenario, c.cfg.Out = s, out
		if _, err := Plan(&c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.cfg, err, c.want)
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
	for trial := range 20 {
		out := filepath.Join(t.TempDir(), fmt.Sprint(trial))
		var wg sync.WaitGroup
		var won atomic.Int32
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := Plan(&Config{Scenario: s, Launcher: "local", Repeat: 1, Order: OrderInterleaved, Out: out}); err == nil {
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

// Without --repeat an abba campaign runs until conclusive, and a
// calibration's pairs become its most pairs (unless --max-pairs is given).
func TestDefaultsFollowTheDesign(t *testing.T) {
	c := &Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, MinPairs: 3, MaxPairs: 10,
		Compare: compare.Options{Calibration: &compare.Calibration{PairsNeeded: 7}}}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if c.Until != UntilConclusive || c.MaxPairs != 7 {
		t.Errorf("until %q, max pairs %d; want conclusive, 7 from the calibration", c.Until, c.MaxPairs)
	}
	c = &Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, Repeat: 2, RepeatSet: true}
	if err := c.Check(); err != nil || c.Until != "" {
		t.Errorf("--repeat 2: until %q, err %v", c.Until, err)
	}
	r, err := Plan(&Config{Scenario: quickstart(t), Launcher: "local", Order: OrderABBA, Repeat: 2, RepeatSet: true, Warmup: 1, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Plan.Runs) != 6 || !r.Plan.Runs[1].Warmup || r.Plan.Runs[2].Warmup || r.Plan.Runs[2].Arm != "blocking" {
		t.Errorf("a warm-up block then 2 abba blocks: %+v", r.Plan.Runs)
	}
}
