package records

// parseSGLang reads SGLang bench_serving's output file: a result per line
// (a run appends one), the one throughput.result names where there are
// several (see servingResult), in the keys of vLLM's benchmark_serving
// and a few of its own.
func (r *Record) parseSGLang(data []byte, spec Spec) {
	obj, ok := r.servingResult(data, spec)
	if !ok {
		return
	}
	// SGLang names no request count (nor failures: a workload that sent
	// more requests than completed is how they show); its throughputs
	// hold only completed requests, and it spells the total
	// total_throughput.
	for key, name := range map[string]string{"input_throughput": "input_throughput", "total_throughput": "total_token_throughput"} {
		if f, ok := number(obj[key]); ok {
			r.Metrics[name] = f
		}
	}
}
