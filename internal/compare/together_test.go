package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/bundle"
)

// A campaign whose blocks' runs ran at the same time (--concurrent) says
// so in its design, counted from the runs' own times; runs one after the
// other say nothing of it.
func TestCompareSaysTheRunsRanSideBySide(t *testing.T) {
	blocks := [][2]float64{{1000, 1100}, {1001, 1101}, {999, 1099}}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	timed := func(together bool) []Run {
		runs := campaignRuns(blocks, nil, 0, len(blocks))
		for i := range runs {
			start := at.Add(time.Duration(i) * time.Minute) // one after the other
			if together {
				start = at.Add(time.Duration(i/2)*time.Minute + time.Duration(i%2)*time.Second)
			}
			runs[i].prov = &bundle.Provenance{Started: start, Ended: start.Add(30 * time.Second)}
		}
		return runs
	}
	r := Compare(timed(true), Options{Effect: 1})
	if r.Design.SideBySide != 3 || r.Design.Timed != 3 || !strings.Contains(NewReport(r).DesignLine(), "the runs of 3 of 3 block(s) ran side by side") {
		t.Errorf("side by side: %d of %d, design %q", r.Design.SideBySide, r.Design.Timed, NewReport(r).DesignLine())
	}
	r = Compare(timed(false), Options{Effect: 1})
	if r.Design.SideBySide != 0 || strings.Contains(NewReport(r).DesignLine(), "side by side") {
		t.Errorf("one after the other: %d, design %q", r.Design.SideBySide, NewReport(r).DesignLine())
	}
}
