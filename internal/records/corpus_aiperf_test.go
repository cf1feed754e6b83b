package records

import (
	"strings"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// NVIDIA AIPerf, January 2026: no schema_version or aiperf_version,
		// error_request_count null (no error), telemetry_data, 100 requests.
		"aiperf/gpt-5.4-mini-concurrency5.json": {Format: "aiperf", Requests: 100,
			Metrics: map[string]float64{"output_throughput": 54.55756456668085, "request_throughput": 0.19245648570156926,
				"duration": 519.597973721},
			Completed: 100, Failed: 0, Valid: true},
		// AIPerf 0.1.1's example run: the metric blocks nested under
		// "records", 11 of 100 requests cancelled on purpose
		// (--request-cancellation-rate 10, RequestCancellationError 499).
		"aiperf/example-run1-records-nested.json": {Format: "aiperf", Requests: 100,
			Metrics: map[string]float64{"output_throughput": 2320.7222350404572, "request_throughput": 9.551622221540914,
				"duration": 9.317788951},
			Completed: 89, Failed: 11, Problem: "11 of 100 requests failed"},
	})
}

// A GenAI-Perf export given as an AIPerf one is unreadable: the two share
// their {unit, avg} blocks, but GenAI-Perf's request_count leaves out the
// requests it measured without a response it could count, and AIPerf's
// reader, which takes request_count for every request, accepted both real
// exports (34 and 65 requests left out) as valid.
func TestAIPerfRefusesGenAIPerfExports(t *testing.T) {
	for _, rel := range []string{"genai-perf/gpt-oss-20b-chat-concurrency1.json", "genai-perf/gpt-oss-20b-chat-with-telemetry.json"} {
		r := Parse(realRecord(t, rel), rel, Spec{Format: "aiperf", Metric: "output_throughput"})
		if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], "is a GenAI-Perf export") {
			t.Errorf("%s read as aiperf: valid %v, unreadable %v, problems %q", rel, r.Valid, r.Unreadable, r.Problems)
		}
	}
}
