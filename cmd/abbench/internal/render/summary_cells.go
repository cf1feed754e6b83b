package render

import "github.com/abbench/abbench/internal/rundir"

// cellRun is a sweep's run as the summary lists it: its arm with its
// cell, and for a run its cell's decided look made unneeded, why it did
// not run. Outside a sweep, arm and why as they are.
func cellRun(p *rundir.Plan, pr *rundir.PlannedRun, arm, why string) (string, string) {
	if pr.Cell == "" {
		return arm, why
	}
	if d := p.CellsDecided[pr.Cell]; d != "" && pr.Result == nil && why == "" {
		why = "not needed: cell " + pr.Cell + " stopped at its " + d
	}
	return arm + " " + pr.Cell, why
}
