package main

import (
	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// armCell is the scenario an arm runs: a sweep's cell, which the plan of
// its campaign names (ref) or --cell gives (given), else the scenario
// itself. A cell --cell gives must be the plan's.
func armCell(s *scenarios.Scenario, ref *rundir.CampaignRef, given string) (*scenarios.Scenario, error) {
	cell := given
	if ref != nil {
		if given != "" && given != ref.Cell {
			return nil, cli.Usagef("leave --cell out: the plan names the cell of each run", "--cell %s: run %d of the plan is of cell %q", given, ref.Index, ref.Cell)
		}
		cell = ref.Cell
	}
	cs, err := s.SweepCell(cell)
	if err != nil {
		return nil, cli.Usage(err, "give the cell to run with --cell NAME (abbench validate lists a scenario's cells)")
	}
	return cs, nil
}
