package history

import (
	"slices"
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

// A sweep's series come in its matrix's order: numbers by value (8, 32,
// 128, never the text order 128, 32, 8), other values as the sweep
// listed them (warm before cold here), the first axis slowest.
func TestCellsAreInTheirMatrixOrder(t *testing.T) {
	var entries []Entry
	for _, cell := range []string{"concurrency=8,cache=warm", "concurrency=8,cache=cold", "concurrency=32,cache=warm", "concurrency=32,cache=cold", "concurrency=128,cache=warm", "concurrency=128,cache=cold"} {
		e := runEntry(cell, 1)
		e.Cell = cell
		entries = append(entries, e)
	}
	slices.Reverse(entries[2:]) // stored out of order: a later sweep's 128 first
	var got []string
	for _, s := range BuildSeries(entries, Filter{}, Detector{}) {
		got = append(got, s.Cell)
	}
	want := []string{"concurrency=8,cache=warm", "concurrency=8,cache=cold", "concurrency=32,cache=warm", "concurrency=32,cache=cold", "concurrency=128,cache=warm", "concurrency=128,cache=cold"}
	if !slices.Equal(got, want) {
		t.Errorf("series of cells\n%v\nwant\n%v", got, want)
	}
}
