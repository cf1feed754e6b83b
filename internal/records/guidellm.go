package records

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// guidellmMetrics are the means over a benchmark's successful requests,
// within its measured window (warmup and cooldown left out), under
// abbench's names.
var guidellmMetrics = []metricPath{
	{"output_throughput", at("metrics", "output_tokens_per_second", "successful", "mean")},
	{"request_throughput", at("metrics", "requests_per_second", "successful", "mean")},
	{"total_token_throughput", at("metrics", "tokens_per_second", "successful", "mean")},
	{"duration", at("duration")},
	{"mean_request_latency_s", at("metrics", "request_latency", "successful", "mean")},
	{"mean_ttft_ms", at("metrics", "time_to_first_token_ms", "successful", "mean")},
	{"mean_itl_ms", at("metrics", "inter_token_latency_ms", "successful", "mean")},
}

// guidellmLatencies are a benchmark's latencies over its successful
// requests: the token latencies in ms, the request's in seconds.
var guidellmLatencies = []toolLatency{
	{TTFT, at("metrics", "time_to_first_token_ms", "successful"), 1},
	{TPOT, at("metrics", "time_per_output_token_ms", "successful"), 1},
	{ITL, at("metrics", "inter_token_latency_ms", "successful"), 1},
	{E2EL, at("metrics", "request_latency", "successful"), 1000},
}

// guidellmKept keeps all of benchmarks.json but each benchmark's
// requests: every request's own statistics (and its prompt and output),
// most of the file, which abbench does not read.
func guidellmKept(path []string, _ bool) bool {
	return len(path) != 3 || path[0] != "benchmarks" || path[2] != "requests"
}

// parseGuideLLM reads GuideLLM's benchmarks.json (its 0.5 layout). A sweep
// holds a benchmark per strategy; each is named as GuideLLM names its
// strategy (synchronous, concurrent@4, throughput@unlimited,
// constant@2.00, poisson@2.00), and Spec.Result picks this run's.
// The counts are the scheduler's over the whole benchmark: a request that
// errored or was cancelled (GuideLLM cancels those in flight when a limit
// such as max_seconds ends it) failed, and a benchmark that sent fewer
// requests than its max_requests fell short.
func (r *Record) parseGuideLLM(data []byte, spec Spec) {
	obj, err := decodeObject(data, guidellmKept)
	if err != nil {
		r.unreadable("does not parse as a GuideLLM benchmarks file: %v", err)
		return
	}
	list, ok := obj["benchmarks"].([]any)
	if !ok {
		r.unreadable("has no benchmarks list: is it a GuideLLM benchmarks.json?")
		return
	}
	names := make([]string, len(list))
	for i, b := range list {
		names[i] = guidellmStrategyName(b)
	}
	if dup, ok := firstRepeated(names); ok {
		r.unreadable("holds more than one benchmark named %q: abbench cannot tell which is this run's", dup)
		return
	}
	i, ok := r.choose(names, spec.Result)
	if !ok {
		return
	}
	bench, ok := list[i].(map[string]any)
	if !ok || bench["scheduler_state"] == nil {
		r.unreadable("benchmark %q has no scheduler_state (GuideLLM 0.5 writes one)", names[i])
		return
	}
	r.metricsAt(bench, guidellmMetrics)
	r.latenciesAt(bench, guidellmLatencies)
	r.guidellmCounts(bench)
}

// guidellmCounts reads the scheduler's counts of one benchmark and says
// why requests are missing: errored, cancelled or never sent.
func (r *Record) guidellmCounts(bench map[string]any) {
	var errored, cancelled, created int
	state := bench["scheduler_state"]
	r.countAt(&r.Completed, state, "successful_requests")
	okErr := r.countAt(&errored, state, "errored_requests")
	okCan := r.countAt(&cancelled, state, "cancelled_requests")
	if okErr && okCan {
		r.Failed = errored + cancelled
	}
	hasCreated := r.countAt(&created, state, "created_requests")
	maxRequests := -1
	if !r.countAt(&maxRequests, bench, "config", "constraints", "max_requests", "max_num") && hasCreated {
		r.Requested = created
	} else {
		r.Requested = maxRequests
	}
	var why []string
	if errored > 0 {
		why = append(why, plural(errored, "request")+" errored")
	}
	if cancelled > 0 {
		why = append(why, plural(cancelled, "request")+" cancelled")
	}
	if hasCreated && maxRequests > created {
		why = append(why, fmt.Sprintf("%d of its max_requests (%d) never sent", maxRequests-created, maxRequests))
	}
	if len(why) == 0 {
		return
	}
	msg := strings.Join(why, ", ")
	ended, _ := lookup(state, "end_processing_constraints")
	if stoppers, _ := ended.(map[string]any); len(stoppers) > 0 {
		msg += ": GuideLLM ended the benchmark at " + strings.Join(slices.Sorted(maps.Keys(stoppers)), " and ")
	}
	r.problem("%s", msg)
}

// guidellmStrategyName is GuideLLM's own name of a benchmark's strategy
// (its SchedulingStrategy.__str__).
func guidellmStrategyName(bench any) string {
	s, _ := lookup(bench, "config", "strategy")
	kind, _ := lookup(s, "type_")
	name, _ := kind.(string)
	param := func(key string) string {
		v, _ := lookup(s, key)
		if f, ok := number(v); ok && (key == "rate" || key == "time_scale") {
			return fmt.Sprintf("%.2f", f)
		}
		if f, _ := number(v); v == nil || (key == "max_concurrency" && f == 0) {
			return "unlimited" // throughput's max_concurrency, None or 0
		}
		return fmt.Sprint(v)
	}
	switch name {
	case "concurrent":
		return name + "@" + param("streams")
	case "throughput":
		return name + "@" + param("max_concurrency")
	case "constant", "poisson":
		return name + "@" + param("rate")
	case "trace":
		return name + "@" + param("time_scale")
	case "":
		return "(no strategy)"
	}
	return name
}

// firstRepeated is the first name given twice.
func firstRepeated(names []string) (string, bool) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n, true
		}
		seen[n] = true
	}
	return "", false
}

// plural counts n of a noun: "1 request", "5 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
