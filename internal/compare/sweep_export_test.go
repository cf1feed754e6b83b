package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/numfmt"
)

// A sweep reports as CSV (a row per arm of every cell, the cell first,
// the Holm-adjusted p and the raw one) and as JUnit (each cell's
// comparison a suite named for it, a censored cell's failed), as a
// comparison does; both were refused before.
func TestSweepReportsAsCSVAndJUnit(t *testing.T) {
	sw := CompareSweep(censoredCellRuns(), Options{})
	var b bytes.Buffer
	if err := sw.Render(&b, "csv", ""); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7 || rows[0][0] != "cell" || rows[0][len(rows[0])-1] != "raw_p" || rows[0][1+csvArm] != "arm" {
		t.Fatalf("%d rows, header %v: want a header and 6 (3 cells x 2 arms)", len(rows), rows[0])
	}
	raw8, holm8 := sw.Cells[0].RawP["async"], *sw.Cells[0].Comparison.Deltas[0].P
	async8 := rows[1]
	if rows[2][1+csvArm] == "async" {
		async8 = rows[2]
	}
	if async8[0] != "concurrency=8" || async8[1+12] != numfmt.Plain(holm8) || async8[len(async8)-1] != numfmt.Plain(raw8) || async8[1+14] != Improved {
		t.Errorf("concurrency=8's async row %v: want p %s (Holm), raw %s, improved", async8, numfmt.Plain(holm8), numfmt.Plain(raw8))
	}
	b.Reset()
	if err := sw.Render(&b, "junit", ""); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	if err := xml.Unmarshal(b.Bytes(), &suites); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	failed := map[string]bool{}
	for _, s := range suites.Suites {
		if strings.HasPrefix(s.Name, "abbench.comparison.") {
			failed[strings.TrimPrefix(s.Name, "abbench.comparison.")] = s.Failures > 0
		}
	}
	if len(failed) != 3 || failed["concurrency=8"] || !failed["concurrency=128"] || suites.Failures < 1 {
		t.Errorf("comparison suites %v (failures %d): want one per cell, concurrency=128's censored:\n%s", failed, suites.Failures, b.String())
	}
}
