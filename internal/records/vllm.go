package records

// parseVLLM reads a vLLM benchmark_serving result (and the TensorRT-LLM
// copy of that script): completed, num_prompts, the throughput keys, and
// either failed (vLLM) or num_prompts - completed (TensorRT-LLM has no
// failed key), plus errors: any non-empty error is a failed request. A
// file of several results (--append-result) is read for the one
// throughput.result names (see servingResult).
func (r *Record) parseVLLM(data []byte, spec Spec) {
	r.servingResult(data, spec)
}

// parseVLLMAppend reads vLLM's --append-result file: a result per line,
// read as parseVLLM reads it: one, or the one throughput.result names.
func (r *Record) parseVLLMAppend(data []byte, spec Spec) {
	r.servingResult(data, spec)
}
