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
	if testing.Short() {
		t.Skip("a Monte Carlo of thousands of campaigns: go test without -short runs it")
	}
	seq, err := decide.NewSequential(decide.MinLookPairs, decide.DefaultMaxPairs, decide.DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
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
	if testing.Short() {
		t.Skip("a Monte Carlo of thousands of campaigns: go test without -short runs it")
	}
	seq, err := decide.NewSequential(decide.MinLookPairs, decide.DefaultMaxPairs, decide.DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
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
