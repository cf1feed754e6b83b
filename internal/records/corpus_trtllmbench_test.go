package records

import (
	"bytes"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// trtllm-bench latency --report_json, TensorRT-LLM 1.2.0, TensorRT
		// backend, Qwen2.5-0.5B-Instruct at batch 1: 20 requests of 128
		// input tokens on an RTX PRO 6000.
		"trtllm-bench/latency-rtx6000-in128-out40-report.json": {Format: "trtllm-bench", Requests: 20,
			Metrics: map[string]float64{"output_throughput": 556.3859403206322, "request_throughput": 13.909648508015806,
				"total_token_throughput": 2336.820949346655, "duration": 1.437850855, "mean_request_latency_ms": 71.86492125,
				"mean_ttft_ms": 5.1066202999999994, "mean_tpot_ms": 1.7117513064102563},
			Completed: 20, Failed: 0, Valid: true},
		// 100 requests of 8,192 input tokens on an RTX 4070 Ti.
		"trtllm-bench/latency-rtx4070ti-in8192-out40-report.json": {Format: "trtllm-bench", Requests: 100,
			Metrics:   map[string]float64{"output_throughput": 124.81039067160957, "request_throughput": 3.120259766790239, "duration": 32.048613728999997},
			Completed: 100, Failed: 0, Valid: true},
		// An FP8 engine with an FP8 KV cache, 100 requests of 1,024 tokens.
		"trtllm-bench/latency-rtx6000-fp8-in1024-out40-report.json": {Format: "trtllm-bench", Requests: 100,
			Metrics:   map[string]float64{"output_throughput": 572.5212830958255, "mean_ttft_ms": 5.00862027},
			Completed: 100, Failed: 0, Valid: true},
	})
}

// A report that finished fewer requests than its dataset loaded is
// censored for the requests missing (the real report edited, in this
// test, to 19 finished: no real report of a run with fewer is known).
func TestTRTLLMBenchRequestsNotFinished(t *testing.T) {
	data := realRecord(t, "trtllm-bench/latency-rtx6000-in128-out40-report.json")
	const finished = `"request_info": {
        "num_requests": 20,`
	edited := bytes.Replace(data, []byte(finished), []byte(`"request_info": {
        "num_requests": 19,`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("the real report no longer holds request_info.num_requests 20")
	}
	for _, requested := range []int{0, 20} {
		r := Parse(edited, "report.json", Spec{Format: "trtllm-bench", Requested: requested, Metric: "output_throughput"})
		if r.Valid || r.Completed != 19 || r.Failed != 1 || r.Problems[0] != "1 of 20 requests failed" {
			t.Errorf("workload %d: valid %v, %d completed %d failed, problems %q", requested, r.Valid, r.Completed, r.Failed, r.Problems)
		}
	}
}
