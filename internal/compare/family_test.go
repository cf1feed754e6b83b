package compare

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/termwidth"
)

// latencyRuns are runs whose records hold output_throughput and
// p99_ttft_ms, the treatment faster on both.
func latencyRuns() []Run {
	runs := runsOf(map[string][]float64{"blocking": {100, 102, 98, 101, 99, 100}, "async": {120, 121, 119, 122, 118, 120}})
	for i, run := range runs {
		ttft := map[string]float64{"blocking": 50, "async": 40}[run.Evidence.Arm] + float64(i%3)
		run.Evidence.Throughput.Metrics["p99_ttft_ms"] = ttft
	}
	return runs
}

// TestCheckMetricsRefusesWhatNoRecordHas: a metric no run's record holds
// is refused as such, listing the metrics they hold, where before it
// censored every run throughput-invalid.
func TestCheckMetricsRefusesWhatNoRecordHas(t *testing.T) {
	runs := latencyRuns()
	err := CheckMetrics(runs, []string{"p99_ttft_ms", "p99_ttf_ms"})
	var unknown *UnknownMetricError
	if !errors.As(err, &unknown) || unknown.Metric != "p99_ttf_ms" || !strings.Contains(err.Error(), "they have output_throughput, p99_ttft_ms") {
		t.Fatalf("got %v", err)
	}
	if err := CheckMetrics(runs, []string{"p99_ttft_ms", "output_throughput", ""}); err != nil {
		t.Errorf("metrics the records hold: %v", err)
	}
	// goodput missing says the three ways it goes missing, the objectives'
	// unit among them: a newcomer's SLO in seconds was met by no request.
	if err := CheckMetrics(runs, []string{"goodput"}); err == nil || !strings.Contains(err.Error(), "at least one request met every objective (the objectives are in milliseconds)") {
		t.Errorf("goodput: %v", err)
	}
	for _, run := range runs {
		run.Evidence.Throughput.Metrics = map[string]float64{} // unreadable records: the gate's to censor
	}
	if err := CheckMetrics(runs, []string{"p99_ttf_ms"}); err != nil {
		t.Errorf("records that hold nothing: %v", err)
	}
}

// TestMetricsAreOneFamily: several metrics are compared each as one, and
// their tests adjusted together by Holm: each adjusted p at least its
// raw p, the family every treatment of every metric; a latency improves
// downwards.
func TestMetricsAreOneFamily(t *testing.T) {
	f := CompareMetrics(latencyRuns(), Options{}, []string{"output_throughput", "p99_ttft_ms"})
	if f.Family != 2 || len(f.Comparisons) != 2 || f.Correction != Holm {
		t.Fatalf("family %d of %d comparisons (%s)", f.Family, len(f.Comparisons), f.Correction)
	}
	for i, r := range f.Comparisons {
		raw, ok := f.RawP[i].P["async"]
		if r.Verdict != Improved || !ok || r.Deltas[0].P == nil || *r.Deltas[0].P < raw {
			t.Errorf("%s: verdict %s, raw p %v, adjusted %v", r.Metric, r.Verdict, raw, r.Deltas[0].P)
		}
	}
	if f.Comparisons[1].HigherIsBetter {
		t.Error("p99_ttft_ms improves upwards")
	}
	var out bytes.Buffer
	if err := f.Render(&out, "table", ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"comparison of s on output_throughput (tokens/s)", "comparison of s on p99_ttft_ms (ms)", "2 metrics compared together (output_throughput (tokens/s), p99_ttft_ms (ms)): a family of 2 test(s)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	// In Markdown the second metric's report does not repeat the same
	// runs' arms, constants and acceptance criteria: it points to the
	// first's (each metric repeated them before, this test failed so).
	out.Reset()
	if err := f.Render(&out, "markdown", ""); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, heading := range []string{"### What changed between the arms", "### Held constant", "### Acceptance criteria"} {
		if n := strings.Count(md, heading); n != 2 {
			t.Errorf("%q %d times, want once a metric", heading, n)
		}
	}
	every := fmt.Sprintf("<details><summary>every run (%d) met every criterion</summary>", len(f.Comparisons[0].Runs))
	if n := strings.Count(md, "As for `output_throughput` above."); n != 3 || strings.Count(md, "<details>") != 1 || !strings.Contains(md, every) {
		t.Errorf("the second metric's sections point to the first's %d times (want 3), %d blocks of criteria (want one, %q):\n%s", n, strings.Count(md, "<details>"), every, md)
	}
}

// TestFamilySummaryIsShort: abbench run's default output of a campaign
// compared on several metrics is a summary like one metric's, not the
// full report: a line per metric and treatment with its change, where
// the full report is, and a verdict line per metric, all within 80
// columns (the whole report took about a hundred lines).
func TestFamilySummaryIsShort(t *testing.T) {
	f := CompareMetrics(latencyRuns(), Options{}, []string{"output_throughput", "p99_ttft_ms"})
	var out bytes.Buffer
	if err := f.WriteSummary(termwidth.NewWriter(&out, 80), "abbench compare DIR"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) > 10 {
		t.Errorf("%d lines:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if termwidth.Display(l) > 80 {
			t.Errorf("a line over 80 columns: %q", l)
		}
	}
	for _, want := range []string{"output_throughput (tokens/s), baseline blocking, p Holm-adjusted for 2 test(s):", "p99_ttft_ms (ms), baseline blocking:",
		"full report, with its 2 warning(s): abbench compare DIR", "verdict: output_throughput: improved: async vs blocking", "verdict: p99_ttft_ms: improved: async vs blocking"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "+----") || strings.Contains(out.String(), "  blocking ") {
		t.Errorf("the summary holds a table or the baseline's line:\n%s", out.String())
	}
}
