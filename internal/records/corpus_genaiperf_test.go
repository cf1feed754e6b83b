package records

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// GenAI-Perf (Triton 25.01 SDK), the flat input_config: request_count 100.
		// request_throughput x request_count x output_sequence_length /
		// output_token_throughput is 100.0: Perf Analyzer measured the 100
		// requests, and 34 of them had no response content GenAI-Perf could
		// count (a reasoning model's answer with no content, or an error).
		"genai-perf/gpt-oss-20b-chat-concurrency1.json": {Format: "genai-perf", Requests: 100,
			Metrics: map[string]float64{"output_throughput": 25.824770552328115, "request_throughput": 0.31455262548511714,
				"mean_request_latency_ms": 3107.7468748939395, "mean_ttft_ms": 2197.1986507727274, "mean_itl_ms": 7.503457666666667},
			Completed: 66, Failed: 34,
			Problem: "34 of the 100 requests GenAI-Perf measured had no response it could count (empty or errored): its request_count (66) and metrics leave them out"},
		// GenAI-Perf (Triton 25.07 SDK), the config-file input_config:
		// measurement {mode: request_count, num: 100}; 35 requests counted.
		"genai-perf/gpt-oss-20b-chat-with-telemetry.json": {Format: "genai-perf", Requests: 100,
			Metrics:   map[string]float64{"output_throughput": 12.095750218698175, "request_throughput": 0.4701030011153585, "mean_ttft_ms": 1524.6265132},
			Completed: 35, Failed: 65,
			Problem: "65 of the 100 requests GenAI-Perf measured had no response it could count (empty or errored): its request_count (35) and metrics leave them out"},
	})
}

// A GenAI-Perf export whose every measured request was counted is valid;
// one that profiled another number of requests than it was configured to
// measure names both. The files are the real ones with request_throughput
// scaled to the requests counted (an edit in this test: no real export
// counts all of its requests), and, for the valid case, the configured
// count edited to match; each layout of input_config is read.
func TestGenAIPerfCountsEveryMeasuredRequest(t *testing.T) {
	for _, c := range []struct {
		file, throughput    string
		counted             int
		countKey, countEdit string
	}{
		{"gpt-oss-20b-chat-concurrency1.json", "0.31455262548511714", 66, `"request_count": 100`, `"request_count": 66`},
		{"gpt-oss-20b-chat-with-telemetry.json", "0.4701030011153585", 35, `"num": 100`, `"num": 35`},
	} {
		data := realRecord(t, "genai-perf/"+c.file)
		old, _ := strconv.ParseFloat(c.throughput, 64)
		scaled := strconv.FormatFloat(old*float64(c.counted)/100, 'g', -1, 64)
		profiledAll := bytes.Replace(data, []byte(`"avg": `+c.throughput), []byte(`"avg": `+scaled), 1)
		spec := Spec{Format: "genai-perf", Metric: "output_throughput"}
		r := Parse(profiledAll, c.file, spec)
		want := "GenAI-Perf profiled " + strconv.Itoa(c.counted) + " requests (by its request_throughput), not the request_count 100 configured"
		if r.Valid || len(r.Problems) == 0 || r.Problems[0] != want {
			t.Errorf("%s, every profiled request counted, 100 configured: valid %v, problems %q, want %q first", c.file, r.Valid, r.Problems, want)
		}
		configured := bytes.Replace(profiledAll, []byte(c.countKey), []byte(c.countEdit), 1)
		spec.Requested = c.counted
		if r := Parse(configured, c.file, spec); !r.Valid || r.Completed != c.counted || r.Requested != c.counted {
			t.Errorf("%s, every configured request counted: valid %v, %d of %d, problems %q", c.file, r.Valid, r.Completed, r.Requested, r.Problems)
		}
	}
}

// Metrics that disagree (a request count that no whole number of
// requests gives) are said, not rounded away.
func TestGenAIPerfMetricsThatDisagree(t *testing.T) {
	data := realRecord(t, "genai-perf/gpt-oss-20b-chat-concurrency1.json")
	edited := bytes.Replace(data, []byte(`"avg": 0.31455262548511714`), []byte(`"avg": 0.3160`), 1)
	r := Parse(edited, "p.json", Spec{Format: "genai-perf", Metric: "output_throughput"})
	if r.Valid || !strings.Contains(strings.Join(r.Problems, "; "), "not a whole number: the export's metrics disagree") {
		t.Fatalf("valid %v, problems %q", r.Valid, r.Problems)
	}
}
