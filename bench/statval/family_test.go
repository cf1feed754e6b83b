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
