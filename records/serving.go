package records

import (
	"bufio"
	"bytes"
)

// servingMetrics are the headline metrics of a serving result, each under
// its own name, in the order their problems are said: a slice, not a map,
// so the same record gives the same problems in the same order (a bundle's
// evidence is derived again and must come out equal).
var servingMetrics = []string{"output_throughput", "request_throughput", "total_token_throughput", "duration"}

// fromServingObject reads the keys of vLLM's benchmark_serving result,
// which TensorRT-LLM's copy of it and SGLang's bench_serving write too.
func (r *Record) fromServingObject(obj map[string]any) {
	for _, key := range servingMetrics {
		if v, ok := obj[key]; ok {
			if f, ok := number(v); ok {
				r.Metrics[key] = f
			} else {
				r.problem("%s is not a number", key)
			}
		}
	}
	r.servingLatencies(obj)
	if v, ok := obj["total_output_tokens"]; ok {
		if n, ok := r.count("total_output_tokens", v); ok {
			r.OutputTokens = &n
		}
	}
	for _, c := range []struct {
		key string
		dst *int
	}{{"completed", &r.Completed}, {"num_prompts", &r.Requested}, {"failed", &r.Failed}} {
		if v, ok := obj[c.key]; ok {
			if n, ok := r.count(c.key, v); ok {
				*c.dst = n
			}
		}
	}
	if errs, ok := obj["errors"].([]any); ok {
		failed := 0
		for _, e := range errs {
			if s, ok := e.(string); ok && s != "" {
				failed++
			}
		}
		if failed > 0 && failed > r.Failed {
			r.Failed = failed
		}
	}
}

// lastServingLine reads the last non-empty line of a newline-separated form
// (vLLM --append-result, SGLang bench_serving's output file) as a serving
// result, and returns its object; false when there is none or it does not
// parse, with the problem said.
func (r *Record) lastServingLine(data []byte, spec Spec) (map[string]any, bool) {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			last = append(last[:0], line...)
		}
	}
	if last == nil {
		r.unreadable("holds no %s record", r.Format)
		return nil, false
	}
	obj, err := decodeObject(last)
	if err != nil {
		r.unreadable("last line does not parse as a %s record: %v", r.Format, err)
		return nil, false
	}
	r.fromServingObject(obj)
	r.goodput(obj, spec.SLO)
	r.flags(obj, spec.Flag)
	return obj, true
}
