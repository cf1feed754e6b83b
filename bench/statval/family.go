package main

import (
	"fmt"

	"github.com/abbench/abbench/internal/decide"
)

// familyTreatments are the treatments of the family table's campaigns.
const familyTreatments = 2

// printFamily prints the default design's A/A false-verdict rate over a
// family of two treatments in every noise model (any treatment saying a
// change counts), and returns the rows that miss the goal.
func printFamily(picked []int, seq *decide.Sequential, rule decide.Rule, campaigns int) []string {
	fmt.Printf("A/A false verdicts of %d treatments as one family (the default sequential design, each treatment at its share of alpha; %d campaigns per row):\n\n", familyTreatments, campaigns)
	fmt.Println("| noise | any treatment said a change | goal |")
	fmt.Println("| --- | ---: | --- |")
	rows := make([]decide.FamilyRow, len(picked))
	each(len(picked), func(j int) {
		i := picked[j]
		rows[j] = decide.ValidateFamily(decide.Models[i], seq, familyTreatments, rule, campaigns, uint64(7000+i))
	})
	var misses []string
	for j, i := range picked {
		m, row := decide.Models[i], rows[j]
		goal := "met"
		if row.Misses() {
			goal = fmt.Sprintf("A/A false verdicts of the family %.1f%% > %.0f%%", 100*row.FalseRate, 100*decide.GoalFalseRate)
			misses = append(misses, m.Name+", "+fmt.Sprint(familyTreatments)+" treatments: "+goal)
		}
		fmt.Printf("| %s | %.1f%% | %s |\n", m.Name, 100*row.FalseRate, goal)
	}
	fmt.Println()
	return misses
}
