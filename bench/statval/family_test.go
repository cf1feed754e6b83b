package main

import (
	"testing"

	"github.com/abbench/abbench/internal/decide"
)

// Two treatments of the default sequential design in A/A at 5% noise say
// a false change, either of them, at most 5% of the time: each is held
// to half of alpha (decide.Sequential.Family). Each at the whole alpha,
// as compare held them before, said one in 8.1% of these campaigns.
func TestTwoTreatmentsHoldAlphaAsAFamily(t *testing.T) {
	seq := monteCarloDesign(t)
	row := decide.ValidateFamily(model(t, "normal, CV 5%"), seq, 2, decide.Rule{HigherIsBetter: true}, 3000, 7)
	t.Logf("two treatments, A/A at CV 5%%: %.2f%% of %d campaigns said a change", 100*row.FalseRate, row.Trials)
	if row.Misses() {
		t.Errorf("two treatments in A/A at CV 5%%: %.2f%% of %d campaigns said a change, over %.0f%%", 100*row.FalseRate, row.Trials, 100*decide.GoalFalseRate)
	}
}

// Two treatments in blocks of three runs under an allocation effect shared
// by two runs: a pair of blocks' two pairs share an allocation through the
// baseline (the second treatment's pairs +0.5 correlated within a pair of
// blocks), which the crossover's variance within each order did not see:
// 6.2% of these 4,000 family campaigns (the validation table's row) said
// a change, beyond the goal's Monte Carlo margin. The crossover's variance
// now holds the pairs of blocks' covariance where it is positive.
func TestTwoTreatmentsHoldAlphaUnderASharedAllocation(t *testing.T) {
	seq := monteCarloDesign(t)
	name := "2% allocation effect per pair, CV 0.5%"
	seed := uint64(7000)
	for i, m := range decide.Models {
		if m.Name == name {
			seed += uint64(i) // the family table's seed for the model
		}
	}
	row := decide.ValidateFamily(model(t, name), seq, 2, decide.Rule{HigherIsBetter: true}, 4000, seed)
	t.Logf("two treatments, A/A under a 2%% allocation effect: %.2f%% of %d campaigns said a change", 100*row.FalseRate, row.Trials)
	if row.Misses() {
		t.Errorf("two treatments in A/A under a 2%% allocation effect: %.2f%% of %d campaigns said a change, over %.0f%%", 100*row.FalseRate, row.Trials, 100*decide.GoalFalseRate)
	}
}

// The family table counts each treatment's own A/A verdicts in its place
// in the block. Under an allocation effect shared by two runs, in blocks
// of three (baseline, first, second treatment; reversed in the other
// order), the first treatment's two pairs of an abba pair of blocks each
// share an allocation with their baseline run and see none of it, where
// the second's share one allocation through the baseline, which the
// crossover's variance within each order does not see: the second says a
// change several times as often as the first (4.9% against 0.6% at
// 2.5% each, 4,000 campaigns). The family's rate lies between the larger
// treatment's and their sum.
func TestFamilyCountsEachTreatmentInItsPlace(t *testing.T) {
	seq := monteCarloDesign(t)
	row := decide.ValidateFamily(model(t, "2% allocation effect per pair, CV 0.5%"), seq, 2, decide.Rule{HigherIsBetter: true}, 2000, 17)
	t.Logf("two treatments under a 2%% allocation effect: the family %.2f%%, each %.2f%% and %.2f%% of %d campaigns", 100*row.FalseRate, 100*row.EachRate[0], 100*row.EachRate[1], row.Trials)
	if len(row.EachRate) != 2 {
		t.Fatalf("%d treatments' rates, want 2", len(row.EachRate))
	}
	first, second := row.EachRate[0], row.EachRate[1]
	if second < 2*first {
		t.Errorf("the second treatment said a change in %.2f%%, the first in %.2f%%: want the second's shared allocation to show", 100*second, 100*first)
	}
	if row.FalseRate < max(first, second) || row.FalseRate > first+second {
		t.Errorf("the family's rate %.2f%% is not between the larger treatment's and their sum (%.2f%%, %.2f%%)", 100*row.FalseRate, 100*first, 100*second)
	}
}

// model is the suite's noise model of that name.
func model(t *testing.T, name string) decide.Model {
	for _, m := range decide.Models {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no noise model %q", name)
	return decide.Model{}
}

// monteCarloDesign is the default sequential design for a test that runs
// a Monte Carlo of thousands of campaigns, skipped under -short.
func monteCarloDesign(t *testing.T) *decide.Sequential {
	t.Helper()
	if testing.Short() {
		t.Skip("a Monte Carlo of thousands of campaigns: go test without -short runs it")
	}
	seq, err := decide.NewSequential(decide.MinLookPairs, decide.DefaultMaxPairs, decide.DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}
