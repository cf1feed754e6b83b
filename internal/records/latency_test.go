package records

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestLatenciesOfEveryLLMFormat reads each LLM tool's real record for its
// latencies, under the one scheme (STAT_KIND_ms), each number the file's
// own (seconds turned into ms). Before the scheme no format but the
// genai-perf, guidellm and trtllm-bench means had any latency, so
// compare --metric p99_ttft_ms censored every run.
func TestLatenciesOfEveryLLMFormat(t *testing.T) {
	for _, c := range []struct {
		rel, format, result, metric string
		want                        float64
	}{
		{"vllm/sweep-seqs4-run0.json", "vllm", "", "p99_ttft_ms", 762.4942294094944},
		{"vllm/sweep-seqs4-run0.json", "vllm", "", "median_itl_ms", 7.372754000243731},
		{"vllm/sweep-seqs4-run0.json", "vllm", "", "mean_e2el_ms", 340.3411977451469},
		{"sglang/h200-deepseek-dp-mla.jsonl", "sglang", "", "median_itl_ms", 371.844899491407},
		{"sglang/h200-deepseek-dp-mla.jsonl", "sglang", "", "mean_e2el_ms", 381236.82297268615}, // mean_e2e_latency_ms
		{"aiperf/qwen36-chatbot-c8.json", "aiperf", "", "p99_ttft_ms", 232.26584434999972},
		{"aiperf/qwen36-chatbot-c8.json", "aiperf", "", "median_e2el_ms", 1789.1776195}, // request_latency.p50
		{"genai-perf/gpt-oss-20b-chat-concurrency1.json", "genai-perf", "", "median_itl_ms", 7.0842575},
		{"guidellm/gpt-oss-20b-30-requests.json", "guidellm", "", "p99.9_ttft_ms", 60.7762336730957},           // percentiles.p999
		{"guidellm/gpt-oss-20b-30-requests.json", "guidellm", "", "median_e2el_ms", 1000 * 30.646172523498535}, // seconds
		{"guidellm/gpt-oss-20b-30-requests.json", "guidellm", "", "p95_tpot_ms", 30.142940115183592},
		{"inference-perf/kubecon-vllm-summary-lifecycle.json", "inference-perf", "", "p99.9_ttft_ms", 1000 * 3.3586477924357174},
		{"llmperf/leaderboard-anyscale-70b-summary.json", "llmperf", "", "p99_ttft_ms", 1000 * 0.4745305190600024},
		{"trtllm-bench/latency-rtx6000-in128-out40-report.json", "trtllm-bench", "", "p99_ttft_ms", 27.130889999999997},
		{"trtllm-bench/latency-rtx6000-in128-out40-report.json", "trtllm-bench", "", "p90_e2el_ms", 75.50215899999999},
		{"console/vllm-qwen2-7b-10-prompts.txt", "console", "", "p99_ttft_ms", 3346.14},
		{"console/vllm-qwen2-7b-10-prompts.txt", "console", "", "median_itl_ms", 42.39},
		{"console/sglang-lora-rate2.txt", "console", "", "mean_e2el_ms", 1979.33}, // Mean E2E Latency (ms)
	} {
		data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", c.rel))
		if err != nil {
			t.Fatal(err)
		}
		r := Parse(data, c.rel, Spec{Format: c.format, Result: c.result, Metric: c.metric})
		got, ok := r.Metrics[c.metric]
		if !ok || math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: %s = %v (present %v), want %v", c.rel, c.metric, got, ok, c.want)
		}
		if HigherIsBetter(c.metric) {
			t.Errorf("%s improves upwards", c.metric)
		}
	}
}

// TestLatencyOfNoValuesLeftOut: vLLM writes 0 for a statistic of no
// values (the ITL of a run without streaming); read as a metric it would
// make the whole record implausible.
func TestLatencyOfNoValuesLeftOut(t *testing.T) {
	data := []byte(`{"completed": 2, "num_prompts": 2, "failed": 0, "output_throughput": 10, "p99_ttft_ms": 12.5, "p99_itl_ms": 0, "mean_itl_ms": 0}`)
	r := Parse(data, "r.json", Spec{Format: "vllm", Requested: 2, Metric: "p99_ttft_ms"})
	if !r.Valid || r.Metrics["p99_ttft_ms"] != 12.5 {
		t.Fatalf("valid %v, metrics %v, problems %v", r.Valid, r.Metrics, r.Problems)
	}
	if _, ok := r.Metrics["p99_itl_ms"]; ok {
		t.Errorf("a zero p99_itl_ms was kept: %v", r.Metrics)
	}
}
