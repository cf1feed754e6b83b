package records

import (
	"bytes"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// kubernetes-sigs/inference-perf, the KubeCon NA 2025 vLLM demo:
		// stage 0 at 1 request/s.
		"inference-perf/kubecon-vllm-stage0-lifecycle.json": {Format: "inference-perf", Requests: 60,
			Metrics: map[string]float64{"output_throughput": 64.23350089997027, "request_throughput": 1.0171575756131475,
				"total_token_throughput": 271.83536208261364, "input_throughput": 207.6018611826434,
				"mean_ttft_s": 0.03112733216257766, "mean_request_latency_s": 0.48048226445680486},
			Completed: 60, Failed: 0, Valid: true},
		// Stage 6: 183.38 requests/s requested, 106.5 sent (the server was
		// saturated); every request sent succeeded, which is what the
		// record says: the rate achieved is the measurement.
		"inference-perf/kubecon-vllm-stage6-lifecycle.json": {Format: "inference-perf", Requests: 11002,
			Metrics:   map[string]float64{"output_throughput": 6431.058168023075, "request_throughput": 103.0780152073592, "mean_ttft_s": 2.9432442679445976},
			Completed: 11002, Failed: 0, Valid: true},
		// The summary of the seven stages (their 38,717 requests).
		"inference-perf/kubecon-vllm-summary-lifecycle.json": {Format: "inference-perf", Requests: 38717,
			Metrics:   map[string]float64{"output_throughput": 3957.912190053508, "request_throughput": 63.46125084268033, "total_token_throughput": 16910.45560332236},
			Completed: 38717, Failed: 0, Valid: true},
		// The same run's Prometheus report: the server's counters (81,418
		// requests, of which none are said to have failed, against the
		// 38,717 the client sent) are no record of this run's requests.
		"inference-perf/kubecon-vllm-summary-prometheus.json": {Format: "inference-perf",
			Metrics: map[string]float64{}, Completed: -1, Failed: -1,
			Problem: "is no lifecycle report (no load_summary.count): inference-perf's Prometheus report counts the model server's requests, not this run's, and no failures; read its lifecycle report (summary_lifecycle_metrics.json, or a stage's)"},
	})
}

// Failed requests fail the report, named by their labels; counts that do
// not add up to the requests sent are said. The real stage 0 report is
// edited in this test (no real report with failures is in the corpus):
// 3 of its 60 requests failed, with inference-perf's by_label breakdown.
func TestInferencePerfFailures(t *testing.T) {
	data := realRecord(t, "inference-perf/kubecon-vllm-stage0-lifecycle.json")
	const failures = `"failures": {"count": 0, "request_latency": null, "prompt_len": null}`
	failed := bytes.Replace(data, []byte(failures),
		[]byte(`"failures": {"count": 3, "request_latency": null, "prompt_len": null, "by_label": {"TimeoutError": {"count": 1, "messages": []}, "HTTP 503": {"count": 2, "messages": []}}}`), 1)
	both := bytes.Replace(failed, []byte(`"successes": {"count": 60`), []byte(`"successes": {"count": 57`), 1)
	if bytes.Equal(both, failed) || bytes.Equal(failed, data) {
		t.Fatal("the real file no longer holds the edited fields")
	}
	r := Parse(both, "stage.json", Spec{Format: "inference-perf", Requested: 60, Metric: "output_throughput"})
	if r.Valid || r.Completed != 57 || r.Failed != 3 || r.Problems[0] != "failed requests by label: HTTP 503: 2, TimeoutError: 1" {
		t.Errorf("valid %v, %d completed %d failed, problems %q", r.Valid, r.Completed, r.Failed, r.Problems)
	}
	r = Parse(failed, "stage.json", Spec{Format: "inference-perf", Requested: 60, Metric: "output_throughput"})
	if r.Valid || r.Problems[0] != "successes.count 60 and failures.count 3 are not the load_summary.count 60 requests sent" {
		t.Errorf("counts that do not add up: valid %v, problems %q", r.Valid, r.Problems)
	}
}
