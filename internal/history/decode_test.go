package history

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/strictjson"
)

// storeLines are lines as Append writes them: a run entry with every run
// field, a comparison entry with every comparison field.
func storeLines(t testing.TB) []string {
	v, d, p, iv := 1234.5678, -3.25, 0.0004, [2]float64{-5.5, -1e-7}
	run := Entry{Schema: Schema, Kind: KindRun, Key: "t0k3n", Added: time.Date(2026, 3, 4, 5, 6, 7, 891, time.UTC),
		Time: time.Date(2026, 3, 4, 1, 2, 3, 0, time.FixedZone("", -7*3600)), Scenario: "nightly", MatchedDigest: "sha256:ab",
		Arm: "b", Metric: "output_throughput", HigherBetter: true, Machine: "1x CPU + 8x GPU", Source: "abc+dirty",
		Build: "sha256:0123456789ab from abc", Signed: true, Value: &v}
	cmp := Entry{Schema: Schema, Kind: KindComparison, Key: "k", Scenario: "s", Arm: "b", Baseline: "a", Metric: "m",
		DeltaPct: &d, Interval: &iv, P: &p, Verdict: "regressed", N: 12, Method: "paired-t", Time: time.Unix(1e9, 5).UTC()}
	var lines []string
	for _, e := range []Entry{run, cmp} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return lines
}

// The lines Append writes take the scanner, not encoding/json (a store of
// years reads in a second because of it).
func TestStoreLinesTakeTheScanner(t *testing.T) {
	for _, line := range storeLines(t) {
		if _, ok := newEntryDecoder().scan([]byte(line)); !ok {
			t.Errorf("the scanner gave up on a line Append writes: %s", line)
		}
	}
}

// TestTwoEntriesOnALineAreTrailingData: a line of two entries run
// together (a writer that lost a newline) is refused with the typed
// error of data after the first, which a caller can tell from any other
// damage; neither entry is read.
func TestTwoEntriesOnALineAreTrailingData(t *testing.T) {
	lines := storeLines(t)
	store := filepath.Join(t.TempDir(), "h.jsonl")
	writeFile(t, store, lines[0]+lines[1]+"\n")
	entries, _, err := Read(store)
	if !errors.Is(err, strictjson.ErrTrailingData) || len(entries) != 0 {
		t.Fatalf("Read = %d entries, %v; want the line refused as data after its entry", len(entries), err)
	}
}
