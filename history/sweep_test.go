package history

import (
	"strings"
	"testing"
)

// A sweep's cells are series of their own: the same scenario, arm and
// metric at two concurrencies never share a series (a step between them
// would be a change point of the sweep, not of the system).
func TestEachCellIsASeriesOfItsOwn(t *testing.T) {
	var entries []Entry
	for i, cell := range []string{"concurrency=8", "concurrency=32", "concurrency=8", "concurrency=32"} {
		e := runEntry(cell+string(rune('a'+i)), float64(10*(i+1)))
		e.Cell = cell
		entries = append(entries, e)
	}
	plain := runEntry("plain", 5)
	series := BuildSeries(append(entries, plain), Filter{}, Detector{})
	if len(series) != 3 {
		t.Fatalf("%d series, want 3 (two cells and the run of no sweep): %+v", len(series), series)
	}
	names := map[string]int{}
	for _, s := range series {
		names[s.Name()] = len(s.Points)
	}
	for _, cell := range []string{"concurrency=8", "concurrency=32"} {
		want := ""
		for name := range names {
			if strings.Contains(name, "["+cell+"]") {
				want = name
			}
		}
		if names[want] != 2 {
			t.Errorf("cell %s: series %q of %d point(s), want 2 (%v)", cell, want, names[want], names)
		}
	}
}
