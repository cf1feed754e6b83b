package campaign

import (
	"strings"

	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/rundir"
)

// cellArm joins a cell and an arm into one name for Order, which then
// orders a sweep's runs as it orders arms.
const cellArm = "\x00"

// sweepRuns plans a sweep's runs: a block holds a run of every arm of
// every cell, cells in cell order, each cell's arms in the arms' order;
// abba reverses every other block whole (so each cell's pairs alternate
// AB, BA as a campaign's do, and the cells first and last alternate too),
// interleaved repeats blocks, random shuffles every run with the seed. So
// a drift over the campaign reaches every cell alike, and each cell is
// compared within itself.
func (c *Config) sweepRuns(armNames []string, blocks int, out string) ([]rundir.PlannedCell, []rundir.PlannedRun) {
	s := c.Scenario
	var cells []rundir.PlannedCell
	var names []string
	for _, cell := range s.Cells() {
		cs, _ := s.ForCell(cell.Name) // validation expanded every cell
		cells = append(cells, rundir.PlannedCell{Name: cell.Name, MatchedDigest: cs.MatchedDigest()})
		for _, arm := range armNames {
			names = append(names, cell.Name+cellArm+arm)
		}
	}
	var runs []rundir.PlannedRun
	for i, name := range c.orderOf(names, c.Warmup+blocks) {
		cell, arm, _ := strings.Cut(name, cellArm)
		runs = append(runs, rundir.PlannedRun{Index: i + 1, Arm: arm, Cell: cell, Dir: rundir.RunDir(out, i+1, arm), Warmup: i < c.Warmup*len(names)})
	}
	return cells, runs
}

// validateSweep refuses what a sweep cannot be: an A/A calibration
// measures one scenario's noise, and a sweep is several.
func (c *Config) validateSweep() error {
	if c.Scenario.Matrix != nil && c.Calibrate != "" {
		return &field.Error{Field: "Calibrate", Value: c.Calibrate, Problem: "the scenario sweeps a matrix: an A/A calibration measures the noise of one scenario: calibrate a copy without matrix:, one cell's values written out"}
	}
	return nil
}
