package records

// trtllmBenchMetrics are the report's performance and streaming metrics
// abbench reads, under its names (latencies in ms, as the report writes them).
var trtllmBenchMetrics = []metricPath{
	{"output_throughput", at("performance", "system_output_throughput_tok_s")},
	{"request_throughput", at("performance", "request_throughput_req_s")},
	{"total_token_throughput", at("performance", "system_total_throughput_tok_s")},
	{"output_throughput_per_user", at("performance", "output_throughput_per_user_tok_s")},
	{"mean_request_latency_ms", at("performance", "avg_request_latency_ms")},
	{"mean_ttft_ms", at("streaming_metrics", "avg_ttft_ms")},
	{"mean_tpot_ms", at("streaming_metrics", "avg_tpot_ms")},
}

// trtllmBenchLatencies are the report's percentile blocks, in ms.
var trtllmBenchLatencies = []toolLatency{
	{TTFT, at("streaming_metrics", "ttft_percentiles"), 1},
	{TPOT, at("streaming_metrics", "tpot_percentiles"), 1},
	{E2EL, at("performance", "request_latency_percentiles_ms"), 1},
}

// parseTRTLLMBench reads the report trtllm-bench (throughput or latency)
// writes with --report_json: request_info.num_requests requests finished
// of the dataset.num_requests it loaded to send. The report counts no
// failed request (one that fails ends trtllm-bench without a report), so
// failures are the requests loaded and not finished.
func (r *Record) parseTRTLLMBench(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as a trtllm-bench report: %v", err)
		return
	}
	if _, ok := obj["performance"].(map[string]any); !ok {
		r.unreadable("has no performance section: is it a trtllm-bench --report_json report?")
		return
	}
	r.flags(obj, spec.Flag)
	r.metricsAt(obj, trtllmBenchMetrics)
	r.latenciesAt(obj, trtllmBenchLatencies)
	if v, ok := lookup(obj, "performance", "total_latency_ms"); ok && v != nil {
		if f, ok := number(v); ok {
			r.Metrics["duration"] = f / 1000
		} else {
			r.problem("performance.total_latency_ms is not a number")
		}
	}
	r.countAt(&r.Completed, obj, "request_info", "num_requests")
	r.countAt(&r.Requested, obj, "dataset", "num_requests")
}
