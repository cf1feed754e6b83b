package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/decide"
)

// githubBenchmarkEntry is one entry of github-action-benchmark's custom
// JSON (tool customBiggerIsBetter or customSmallerIsBetter): its parser
// reads name, value, unit, range and extra of each element of an array.
type githubBenchmarkEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	// Range is "± H", H the interval's half width: the form the action
	// reads back as a number (its extractRangeInfo).
	Range string `json:"range"`
	Extra string `json:"extra"`
}

// GitHubBenchmark writes github-action-benchmark's custom JSON: one entry
// per treatment, its value the change in percent, its range the
// interval's half width, its extra the interval itself, the verdict and
// how it was decided. The tool to give the action follows the metric:
// customBiggerIsBetter when higher is better (a positive change is an
// improvement), customSmallerIsBetter otherwise. A censored comparison is
// [], which the action refuses as holding no benchmark: a censored
// comparison never lands on the dashboard as a number.
func (r Report) GitHubBenchmark(w io.Writer) error {
	entries := []githubBenchmarkEntry{}
	for _, d := range r.exportedDeltas() {
		extra := []string{
			fmt.Sprintf("%s interval [%+.2f%%, %+.2f%%]", decide.IntervalLevel(d.Alpha), d.lo, d.hi),
			"verdict: " + d.Verdict,
			oneLine(d.How()),
		}
		if p := d.decidingP(); p != "" {
			extra = append(extra, "p = "+p)
		}
		entries = append(entries, githubBenchmarkEntry{
			Name:  r.benchmarkName(d.Arm),
			Unit:  "%",
			Value: d.pct,
			// Two decimals, no thousands separator: the action reads
			// a digit and at least one character after it as a Number.
			Range: "± " + strconv.FormatFloat((d.hi-d.lo)/2, 'f', 2, 64),
			Extra: strings.Join(extra, "\n"),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(entries)
}
