package compare

import (
	"io"
	"math"
	"strings"
)

// Exports are the report formats dashboards and CI systems ingest, each
// written by its own file: Bencher's metric format, github-action-
// benchmark's custom JSON, OpenMetrics for GitLab's metrics report, and
// the name=value lines of a GitHub Actions step's outputs.
var exports = map[string]func(Report, io.Writer) error{
	"bmf":              Report.BMF,
	"github-benchmark": Report.GitHubBenchmark,
	"openmetrics":      Report.OpenMetrics,
	"github-output":    Report.GitHubOutput,
}

// exported is one treatment's delta as the exports carry it: only a
// delta with its interval, finite, is one (a censored comparison has
// none, and a dashboard must not chart a number abbench did not accept).
type exported struct {
	Delta
	pct, lo, hi float64
}

// exportedDeltas are the treatments' deltas the exports carry, in the
// report's order; none when the comparison is censored.
func (r Report) exportedDeltas() []exported {
	if r.Verdict == Censored {
		return nil
	}
	var out []exported
	for _, d := range r.Deltas {
		if d.Pct == nil || d.Interval == nil {
			continue
		}
		e := exported{Delta: d, pct: *d.Pct, lo: d.Interval[0], hi: d.Interval[1]}
		if finite(e.pct) && finite(e.lo) && finite(e.hi) {
			out = append(out, e)
		}
	}
	return out
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// baselineName is what a treatment is compared with: the baseline arm,
// or a stored campaign's baseline.
func (r Report) baselineName() string {
	if r.Baseline != "" {
		return r.Baseline
	}
	return "stored-baseline"
}

// benchmarkName names one treatment's comparison for a dashboard:
// scenario, metric, treatment and baseline, one line.
func (r Report) benchmarkName(arm string) string {
	return oneLine(r.Scenario + "/" + r.Metric + ": " + arm + " vs " + r.baselineName())
}

// oneLine replaces the line breaks a name must not hold.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(s)
}
