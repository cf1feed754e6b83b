package campaign

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func sweep(t *testing.T) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Load("../../scenarios/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A sweep's plan interleaves its cells: a block holds a run of every arm
// of every cell, abba reverses whole blocks, so each cell's own runs
// alternate AB, BA.
func TestSweepPlanInterleavesCells(t *testing.T) {
	r, err := Plan(&Config{Scenario: sweep(t), Launcher: "local", Repeat: 2, Order: OrderABBA, Out: t.TempDir(), Self: "abbench"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range r.Plan.Runs {
		got = append(got, pr.Cell+" "+pr.Arm)
	}
	want := "concurrency=8 async,concurrency=8 blocking,concurrency=32 async,concurrency=32 blocking,concurrency=128 async,concurrency=128 blocking," +
		"concurrency=128 blocking,concurrency=128 async,concurrency=32 blocking,concurrency=32 async,concurrency=8 blocking,concurrency=8 async"
	if strings.Join(got, ",") != want {
		t.Fatalf("plan order:\n%s\nwant\n%s", strings.Join(got, ","), want)
	}
	if len(r.Plan.Cells) != 3 || r.Plan.Cells[1].Name != "concurrency=32" {
		t.Fatalf("plan cells %+v", r.Plan.Cells)
	}
	// Each run's campaign reference is its cell's: the cell's runs, its
	// matched digest, its block counted over the whole plan.
	ref := r.Plan.Ref(9)
	if ref.Cell != "concurrency=32" || strings.Join(ref.Runs, " ") != "3-async 4-blocking 9-blocking 10-async" {
		t.Errorf("run 9's reference: cell %q, runs %v", ref.Cell, ref.Runs)
	}
	if ref.MatchedDigest != r.Plan.Cells[1].MatchedDigest || ref.MatchedDigest == r.Plan.MatchedDigest {
		t.Errorf("run 9's matched digest %.12s, want its cell's %.12s (not the whole scenario's)", ref.MatchedDigest, r.Plan.Cells[1].MatchedDigest)
	}
	if ref.Block(3) != 0 || ref.Block(9) != 1 || ref.Block(6) != 0 {
		t.Errorf("blocks of runs 3, 9, 6: %d %d %d, want 0 1 0", ref.Block(3), ref.Block(9), ref.Block(6))
	}
	if other := r.Plan.Ref(3); other.PlanDigest != ref.PlanDigest || r.Plan.Ref(1).PlanDigest == ref.PlanDigest {
		t.Error("a cell's runs share their plan digest, and other cells' differ")
	}
}

func TestSweepCalibrationIsRefused(t *testing.T) {
	_, err := Plan(&Config{Scenario: sweep(t), Launcher: "local", Repeat: 3, Order: OrderABBA, Calibrate: "async", Out: t.TempDir(), Self: "abbench"})
	var ie *InvalidError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "sweeps a matrix") {
		t.Errorf("a calibration of a sweep: %v", err)
	}
}

// TestSweepPlanSignsTheFamilyOfCells: a sequential sweep signs the size
// of its family of cells with its stop rule, so that every cell's looks
// (its stop) and every later compare hold each cell's test to its share
// of alpha: the cells' verdicts and their stops are one decision.
func TestSweepPlanSignsTheFamilyOfCells(t *testing.T) {
	r, err := Plan(&Config{Scenario: sweep(t), Launcher: "local", Until: UntilConclusive, MinPairs: 3, MaxPairs: 10, Order: OrderABBA, Out: t.TempDir(), Self: "abbench"})
	if err != nil {
		t.Fatal(err)
	}
	if rule := r.Plan.Sequential.Rule; rule == nil || rule.Cells != 3 {
		t.Fatalf("the stop rule signs no family of 3 cells: %+v", rule)
	}
	signed := r.Plan.Ref(1).PlanDigest
	r.Plan.Sequential.Rule.Cells = 0
	if r.Plan.Ref(1).PlanDigest == signed {
		t.Error("the family of cells is not in the plan digest every run signs")
	}
	if got := fmt.Sprint(len(r.Plan.Runs)); got != "60" {
		t.Errorf("%s runs planned, want 60 (10 pairs of 3 cells)", got)
	}
	fixed, err := Plan(&Config{Scenario: sweep(t), Launcher: "local", Repeat: 3, Order: OrderABBA, Out: t.TempDir(), Self: "abbench"})
	if err != nil || fixed.Plan.Sequential != nil {
		t.Errorf("a fixed sweep: %v, sequential %+v", err, fixed.Plan.Sequential)
	}
}

// Once every cell of a sweep stopped, the campaign's stop says how many
// decided: a cell its futility stop ended is no decided cell.
func TestEveryCellStoppedCountsOnlyDecidedCells(t *testing.T) {
	got := everyCellStopped(map[string]string{
		"c=8":   "look at pair 5 of at most 18: improved",
		"c=32":  "look at pair 9 of at most 18: inconclusive" + futileStop,
		"c=128": "look at pair 6 of at most 18: no-change",
	}, []rundir.Look{
		{Cell: "c=8", Pairs: 3, Verdict: compare.Inconclusive}, {Cell: "c=8", Pairs: 5, Verdict: compare.Improved},
		{Cell: "c=32", Pairs: 9, Verdict: compare.Inconclusive},
		{Cell: "c=128", Pairs: 6, Verdict: compare.NoChange},
	})
	if want := "looks of every cell: each of its 3 cells stopped, 2 decided, 1 undecided"; !strings.HasPrefix(got, want) {
		t.Errorf("%q, want it to begin %q", got, want)
	}
}
