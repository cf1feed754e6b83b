package history

import (
	"fmt"
	"time"

	"github.com/abbench/abbench/internal/compare"
)

// Name is the series as reports title it: scenario, a sweep's cell,
// arm and metric.
func (s Series) Name() string {
	if s.Cell != "" {
		return fmt.Sprintf("%s [%s] / %s / %s", s.Scenario, s.Cell, s.Arm, s.Metric)
	}
	return fmt.Sprintf("%s / %s / %s", s.Scenario, s.Arm, s.Metric)
}

// FromSweep makes the entries of an accepted sweep: each cell's as
// FromComparison makes them, each entry naming its cell, so that every
// cell is a series of its own. A sweep with a censored cell adds
// nothing (ErrCensored): the store holds accepted evidence only, and a
// sweep is compared whole.
func FromSweep(sw *compare.Sweep, runs []compare.Run, signed bool, added time.Time) ([]Entry, error) {
	if len(sw.Reasons) > 0 {
		return nil, fmt.Errorf("%w: the sweep: %s", ErrCensored, sw.Reasons[0])
	}
	var out []Entry
	for _, c := range sw.Cells {
		var mine []compare.Run
		for _, run := range runs {
			if compare.CellOf(run) == c.Cell {
				mine = append(mine, run)
			}
		}
		entries, err := FromComparison(c.Comparison, mine, signed, added)
		if err != nil {
			return nil, fmt.Errorf("cell %s: %w", c.Cell, err)
		}
		for i := range entries {
			entries[i].Cell = c.Cell
		}
		out = append(out, entries...)
	}
	return out, nil
}
