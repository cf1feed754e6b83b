package records

// parseVLLM reads a vLLM benchmark_serving result (and the TensorRT-LLM
// copy of that script): completed, num_prompts, the throughput keys, and
// either failed (vLLM) or num_prompts - completed (TensorRT-LLM has no
// failed key), plus errors: any non-empty error is a failed request.
func (r *Record) parseVLLM(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as a %s result: %v", r.Format, err)
		return
	}
	r.fromServingObject(obj)
	r.goodput(obj, spec.SLO)
	r.flags(obj, spec.Flag)
}

// parseVLLMAppend reads vLLM's --append-result file: a result per line,
// the last one the record.
func (r *Record) parseVLLMAppend(data []byte, spec Spec) {
	r.lastServingLine(data, spec)
}
