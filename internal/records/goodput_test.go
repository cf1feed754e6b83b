package records

import (
	"strings"
	"testing"
)

// TestGoodputFromPerRequestLists: goodput counts the requests that met
// every objective (TTFT, TPOT from the gaps after the first token, E2E as
// TTFT plus the gaps) per second, from vLLM's --save-detailed lists; a
// failed request meets none.
func TestGoodputFromPerRequestLists(t *testing.T) {
	data := []byte(`{"completed": 3, "failed": 1, "num_prompts": 4, "duration": 2, "output_throughput": 5,
		"ttfts": [0.1, 0.5, 0.2, 0], "itls": [[0.01, 0.01], [0.01], [0.2, 0.2], []], "output_lens": [3, 2, 3, 0],
		"errors": ["", "", "", "HTTP 500"], "total_output_tokens": 8}`)
	for _, c := range []struct {
		slo  SLO
		want float64
	}{
		{SLO{TTFT: 300}, 1},                   // requests 0 and 2
		{SLO{TTFT: 300, TPOT: 50}, 0.5},       // request 2's TPOT is 200 ms
		{SLO{E2E: 515}, 1},                    // 120, 510 and 600 ms: requests 0 and 1
		{SLO{TTFT: 1000, TPOT: 1000}, 1.5},    // every request that succeeded
		{SLO{TTFT: 1000, E2E: 1000}, 3.0 / 2}, // the failed one never counts
	} {
		r := Parse(data, "r.json", Spec{Format: "vllm", Metric: Goodput, SLO: &c.slo})
		if got := r.Metrics[Goodput]; got != c.want {
			t.Errorf("SLO %s: goodput %v, want %v (problems %v)", c.slo, got, c.want, r.Problems)
		}
		if r.OutputTokens == nil || *r.OutputTokens != 8 {
			t.Errorf("output tokens %v, want 8", r.OutputTokens)
		}
	}
	// Without objectives there is no goodput.
	if r := Parse(data, "r.json", Spec{Format: "vllm", Metric: "output_throughput"}); r.Metrics[Goodput] != 0 {
		t.Errorf("goodput without SLOs: %v", r.Metrics)
	}
	// Lists of other lengths cannot say which request is which.
	bad := []byte(`{"completed": 2, "num_prompts": 2, "failed": 0, "duration": 1, "output_throughput": 5,
		"ttfts": [0.1, 0.2], "itls": [[0.01]], "output_lens": [2, 2], "errors": ["", ""]}`)
	r := Parse(bad, "r.json", Spec{Format: "vllm", Metric: "output_throughput", SLO: &SLO{TTFT: 100}})
	if r.Valid || !strings.Contains(strings.Join(r.Problems, "; "), "per-request lists differ in length") {
		t.Errorf("lists of other lengths: valid %v, problems %v", r.Valid, r.Problems)
	}
}

// TestProvides: what a format's records can hold, known before a run.
func TestProvides(t *testing.T) {
	for _, c := range []struct {
		format, metric string
		slo, want      bool
	}{
		{"vllm", "p99_ttft_ms", false, true},
		{"vllm", "p99.9_e2el_ms", false, true},
		{"vllm", "median_itl_ms", false, true},
		{"vllm", "p99_ttf_ms", false, false},
		{"vllm", "goodput", true, true},
		{"vllm", "goodput", false, false},
		{"console", "goodput", true, false},
		{"aiperf", "p99_tpot_ms", false, false},
		{"llmperf-responses", "mean_ttft_ms", false, true},
		{"llmperf-responses", "p99_ttft_ms", false, false},
		{"trtllm-bench", "p90_e2el_ms", false, true},
		{"regex", "anything", false, true},
	} {
		if got := Provides(c.format, c.metric, c.slo); got != c.want {
			t.Errorf("Provides(%s, %s, slo %v) = %v, want %v", c.format, c.metric, c.slo, got, c.want)
		}
	}
	if l := ProvidedList("vllm"); !strings.Contains(l, "output_throughput") || !strings.Contains(l, "p99_ttft_ms") {
		t.Errorf("vllm's list: %s", l)
	}
}
