package historycmd

import (
	"fmt"
	"time"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/history"
)

// historyEntries compares the runs and makes their entries: a sweep's
// cell by cell (one series per cell), other runs as one comparison. The
// result is what the line add prints names: the comparison, or for a
// sweep its scenario and metric with the cell count.
func historyEntries(runs []compare.Run, co compare.Options) (*compare.Result, []history.Entry, error) {
	if !compare.IsSweep(runs) {
		r := compare.Compare(runs, co)
		entries, err := history.FromComparison(r, runs, co.SignaturesChecked, time.Now())
		return r, entries, err
	}
	sw := compare.CompareSweep(runs, co)
	entries, err := history.FromSweep(sw, runs, co.SignaturesChecked, time.Now())
	named := &compare.Result{Scenario: fmt.Sprintf("%s (%d cells)", sw.Scenario, len(sw.Cells))}
	if len(sw.Cells) > 0 {
		named.Metric = sw.Cells[0].Comparison.Metric
	}
	return named, entries, err
}
