package scenarios

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// CellSummary is one cell of a sweep as validate reports it: its name,
// its own matched digest, and the workload it sends.
type CellSummary struct {
	Name          string          `json:"name"`
	MatchedDigest string          `json:"matched_digest"`
	Workload      WorkloadSummary `json:"workload"`
}

// cellSummaries are the scenario's cells, in cell order (nil without a
// matrix).
func (s *Scenario) cellSummaries() []CellSummary {
	var out []CellSummary
	for _, c := range s.Cells() {
		cs, err := s.ForCell(c.Name)
		if err != nil {
			continue // validation parsed every value: a cell that does not expand is not reported as if it did
		}
		w := cs.Workload
		out = append(out, CellSummary{Name: c.Name, MatchedDigest: cs.MatchedDigest(),
			Workload: WorkloadSummary{Requests: int(w.Requests), Concurrency: w.Concurrency, Rounds: w.Rounds}})
	}
	return out
}

// writeCells lists a sweep's cells, each its own matched A/B.
func writeCells(out *textout.Writer, cells []CellSummary) {
	if len(cells) == 0 {
		return
	}
	out.Printf("\nmatrix: %d cell(s), each its own matched A/B, compared within itself (the %d cells' verdicts one family: each held to its share of alpha in a sequential campaign, Holm-adjusted in a fixed one):\n", len(cells), len(cells))
	var rows [][]string
	for _, c := range cells {
		rows = append(rows, []string{c.Name, fmt.Sprint(c.Workload.Requests), fmt.Sprint(c.Workload.Concurrency), fmt.Sprint(c.Workload.Rounds), fmt.Sprintf("%.12s", c.MatchedDigest)})
	}
	// out keeps the first write error, which WriteText returns.
	_ = texttable.Write(out, []string{"cell", "requests", "concurrency", "rounds", "matched digest"}, rows)
}

// sweptWorkloadKeys are the workload keys the matrix's axes set.
func (s *Scenario) sweptWorkloadKeys() []string {
	var keys []string
	for _, a := range s.Matrix {
		if _, ok := workloadAxes[a.Name]; ok {
			keys = append(keys, a.Name)
		}
	}
	return keys
}

// sweptNote says which workload keys the cells set instead.
func sweptNote(keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	return " (but " + strings.Join(keys, ", ") + ": each cell's, below)"
}
