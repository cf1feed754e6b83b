package main

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
)

// familyTreatments are the treatments of the family table's campaigns.
const familyTreatments = 2

// printFamily prints the default design's A/A false-verdict rate over a
// family of two treatments in every noise model (any treatment saying a
// change counts), and returns the rows that miss the goal.
func printFamily(picked []int, seq *decide.Sequential, rule decide.Rule, campaigns int) []string {
	return printFamilyOf(picked, "the default sequential design", seq, rule, campaigns)
}

// printFamilyOf is printFamily's table for the design seq, named by
// what.
func printFamilyOf(picked []int, what string, seq *decide.Sequential, rule decide.Rule, campaigns int) []string {
	fmt.Printf("A/A false verdicts of %d treatments as one family (%s, each treatment at its share of alpha; %d campaigns per row):\n\n", familyTreatments, what, campaigns)
	fmt.Printf("| noise | any treatment said a change | each treatment, in block order (its share of alpha %s) | goal |\n", numfmt.Significant(seq.Family(familyTreatments).Alpha, 3))
	fmt.Println("| --- | ---: | ---: | --- |")
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
			misses = append(misses, m.Name+", "+fmt.Sprint(familyTreatments)+" treatments, "+what+": "+goal)
		}
		each := make([]string, len(row.EachRate))
		for t, r := range row.EachRate {
			each[t] = fmt.Sprintf("%.1f%%", 100*r)
		}
		fmt.Printf("| %s | %.1f%% | %s | %s |\n", m.Name, 100*row.FalseRate, strings.Join(each, ", "), goal)
	}
	fmt.Println()
	return misses
}
