package records

// parseAIPerf reads profile_export_aiperf.json: metrics are {unit, avg, ...}
// blocks; request_count and error_request_count count requests; a run that
// was_cancelled is invalid.
func (r *Record) parseAIPerf(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as an AIPerf profile export: %v", err)
		return
	}
	if _, genaiPerf := lookup(obj, "input_config", "subcommand"); genaiPerf && obj["was_cancelled"] == nil {
		// GenAI-Perf's export has AIPerf's blocks, but its request_count
		// leaves out requests it measured: read as AIPerf's, it would hide them.
		r.unreadable("is a GenAI-Perf export (input_config.subcommand, no was_cancelled): read it with format genai-perf, which counts the requests GenAI-Perf measured")
		return
	}
	r.flags(obj, spec.Flag)
	if reasons, ok := obj["runtime_submission_invalid_reasons"].([]any); ok && len(reasons) > 0 {
		r.problem("the run is not a valid submission: runtime_submission_invalid_reasons %v", reasons)
	}
	// Older exports nest the metric blocks under "records".
	blocks := obj
	if nested, ok := obj["records"].(map[string]any); ok {
		blocks = nested
	}
	avg := func(key string) (float64, bool) {
		block, ok := blocks[key].(map[string]any)
		if !ok {
			return 0, false
		}
		return number(block["avg"])
	}
	for key, name := range map[string]string{"output_token_throughput": "output_throughput", "request_throughput": "request_throughput",
		"total_token_throughput": "total_token_throughput", "benchmark_duration": "duration"} {
		if f, ok := avg(key); ok {
			r.Metrics[name] = f
		}
	}
	r.latenciesAt(blocks, unitBlockLatencies)
	if f, ok := avg("request_count"); ok {
		if n, ok := r.count("request_count", f); ok {
			r.Completed = n
		}
	}
	errCount := 0
	if f, ok := number(obj["error_request_count"]); ok {
		errCount, _ = r.count("error_request_count", f)
	} else if f, ok := avg("error_request_count"); ok {
		errCount, _ = r.count("error_request_count", f)
	}
	if list, ok := obj["error_summary"].([]any); ok {
		sum := 0
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				if f, ok := number(m["count"]); ok {
					sum += int(f)
				}
			}
		}
		errCount = max(errCount, sum)
	}
	if r.Completed >= 0 {
		r.Requested = r.Completed + errCount
	}
	r.Failed = errCount
	if c, ok := obj["was_cancelled"].(bool); ok && c {
		r.problem("the benchmark was cancelled (was_cancelled: true)")
	}
}
