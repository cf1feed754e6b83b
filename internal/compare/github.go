package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
)

// GitHub does what a GitHub Actions job wants of a comparison, reading its
// environment through getenv: with GITHUB_STEP_SUMMARY set, the Markdown
// report is appended to the step summary; with GITHUB_ACTIONS=true, the
// verdict becomes an annotation on w (error for censored or regressed,
// warning for inconclusive, no-change or descriptive), with the first
// reason or the headline. The runner reads workflow commands from the
// step's output, so w is stderr: stdout may carry a JSON report.
func (r Report) GitHub(getenv func(string) string, w io.Writer) error {
	if path := getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := r.AppendMarkdown(path); err != nil {
			return fmt.Errorf("appending the report to GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	level, msg := "warning", r.Headline()
	switch r.Verdict {
	case Improved:
		level = "notice"
	case Censored:
		level = "error"
		msg = r.Headline() + ": " + r.Reasons[0].String()
	case Regressed:
		level = "error"
	}
	if r.GateUndecided != "" { // a gate that cannot decide never passes silently
		level, msg = "error", r.Headline()+": "+r.GateUndecided
	}
	_, err := fmt.Fprintf(w, "::%s title=%s::%s\n", level, annotationProperty("abbench "+r.Scenario+": "+r.Verdict), annotationData(msg))
	return err
}

// annotationData escapes a workflow command's message (GitHub's rules:
// %, CR and LF).
func annotationData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// annotationProperty escapes a workflow command's property value: also ':'
// and ','.
func annotationProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// CSV writes one row per arm: its sample and, for a treatment, its delta
// against the baseline (empty cells where there is none). The header says
// each column's unit: "unit" is the metric's (of median and mean; empty
// when its name does not say), the rest say theirs (_pct: percent); every
// number is exact, without an exponent.
func (r Report) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, row := range r.csvRows() {
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// csvHeader names the columns of a comparison's CSV report, a row an arm.
var csvHeader = []string{"scenario", "metric", "unit", "arm", "baseline", "n", "median", "mean", "cv_pct", "delta_pct", "interval_lo_pct", "interval_hi_pct", "p", "method", "verdict"}

// csvArm is the column of csvHeader that names the row's arm.
const csvArm = 3

// csvRows are the comparison's rows, an arm each, as csvHeader names them.
func (r Report) csvRows() [][]string {
	var rows [][]string
	unit := MetricUnit(r.Metric)
	for _, a := range r.Arms {
		row := []string{r.Scenario, r.Metric, unit, a.Name, r.Baseline, fmt.Sprint(a.N), numfmt.Plain(a.Median), numfmt.Plain(a.Mean), numfmt.Plain(100 * a.CV), "", "", "", "", "", ""}
		verdict := "baseline"
		if a.Name != r.Baseline {
			verdict = r.Verdict // censored: every treatment is
		}
		if d := deltaOf(r.Deltas, a.Name); d != nil {
			if d.Pct != nil {
				row[9] = numfmt.Plain(*d.Pct)
			}
			if d.Interval != nil {
				row[10], row[11] = numfmt.Plain(d.Interval[0]), numfmt.Plain(d.Interval[1])
			}
			if d.P != nil {
				row[12] = numfmt.Plain(*d.P)
			}
			row[13], verdict = d.Method, d.Verdict
		}
		row[14] = verdict
		rows = append(rows, row)
	}
	return rows
}
