package records

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
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

// servingResult reads this run's result of a serving file: its one JSON
// object, or, in a file a tool appended a result per run to (vLLM's
// --append-result, SGLang bench_serving's --output-file), the one
// throughput.result names by its 1-based place; see chooseServing. It
// returns the result's object; false when there is none, with the
// record unreadable.
func (r *Record) servingResult(data []byte, spec Spec) (map[string]any, bool) {
	results, err := decodeKeptObjects(data, servingKept)
	if err != nil {
		r.unreadable("does not parse as a %s result: %v", r.Format, err)
		return nil, false
	}
	i, ok := r.chooseServing(results, spec.Result)
	if !ok {
		return nil, false
	}
	obj := results[i]
	r.fromServingObject(obj)
	r.flags(obj, spec.Flag)
	return obj, true
}

// servingKept keeps what a serving result is read for: its top-level
// numbers, strings and flags, and its errors list; not its per-request
// lists (prompt and output lengths, first-token times, inter-token
// latencies, generated texts), which are most of a large result.
func servingKept(path []string, container bool) bool {
	switch len(path) {
	case 1:
		return !container || path[0] == "errors"
	case 2:
		return path[0] == "errors" && !container
	}
	return false
}

// maxDescribed is how many of a file's results its refusal describes,
// the first and the last half of them, so that a file of thousands
// gives a reason a reader can read.
const maxDescribed = 12

// servingKeys tell the results of one appended file apart, as their
// tools write them: vLLM's date, and the load each run was given.
var servingKeys = []string{"date", "request_rate", "max_concurrency", "num_prompts", "completed"}

// chooseServing picks this run's result among a file's: a file of one
// gives it; a file of several only the one throughput.result names by
// its place ("1" is the first), since which of them this run wrote the
// file does not say (the last is the previous run's when this one wrote
// none). A file of several read without a name is unreadable, each of
// its results described by what tells them apart.
func (r *Record) chooseServing(results []map[string]any, want string) (int, bool) {
	if want == "" && len(results) > 1 {
		r.chose = true
		var described []string
		for i, obj := range results {
			if len(results) > maxDescribed && i == maxDescribed/2 {
				described = append(described, fmt.Sprintf("%d more", len(results)-maxDescribed))
			}
			if len(results) > maxDescribed && i >= maxDescribed/2 && i < len(results)-maxDescribed/2 {
				continue
			}
			var parts []string
			for _, key := range servingKeys {
				if v := obj[key]; v != nil && differ(results, key) {
					parts = append(parts, fmt.Sprintf("%s %s", key, truncateText(fmt.Sprint(v), 40)))
				}
			}
			described = append(described, fmt.Sprintf("%d: %s", i+1, cmp.Or(strings.Join(parts, ", "), "the same date and load")))
		}
		r.unreadable("holds %d results, appended one per run (%s): name this run's by its place with throughput.result (\"1\" to \"%d\"), or give each run a file of its own",
			len(results), strings.Join(described, "; "), len(results))
		return 0, false
	}
	names := make([]string, len(results))
	for i := range results {
		names[i] = strconv.Itoa(i + 1)
	}
	return r.choose(names, want)
}

// differ says whether the results' values of key are not all one.
func differ(results []map[string]any, key string) bool {
	first := fmt.Sprint(results[0][key])
	for _, obj := range results[1:] {
		if fmt.Sprint(obj[key]) != first {
			return true
		}
	}
	return false
}
