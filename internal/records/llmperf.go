package records

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// llmperfMetrics are the summary's keys abbench reads: the run's output
// throughput (tokens of completed requests over the test's duration) and
// the means over completed requests (seconds), under abbench's names.
var llmperfMetrics = []metricPath{
	{"output_throughput", at("results_mean_output_throughput_token_per_s")},
	{"request_output_throughput", at("results_request_output_throughput_token_per_s_mean")},
	{"mean_ttft_s", at("results_ttft_s_mean")},
	{"mean_itl_s", at("results_inter_token_latency_s_mean")},
	{"mean_e2el_s", at("results_end_to_end_latency_s_mean")},
}

// parseLLMPerf reads LLMPerf's *_summary.json (token_benchmark_ray.py):
// results_num_requests_started requests, results_num_completed_requests
// without an error code, results_number_errors with one, named by
// results_error_code_frequency. A test that timed out started fewer
// requests than it was asked to complete; only the workload's count says
// so, for the summary does not write the count asked for.
func (r *Record) parseLLMPerf(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as an LLMPerf summary: %v", err)
		return
	}
	r.flags(obj, spec.Flag)
	r.metricsAt(obj, llmperfMetrics)
	r.llmperfLatencies(obj)
	if v, ok := obj["results_num_completed_requests_per_min"]; ok && v != nil {
		if f, ok := number(v); ok {
			r.Metrics["request_throughput"] = f / 60
		} else {
			r.problem("results_num_completed_requests_per_min is not a number")
		}
	}
	r.countAt(&r.Requested, obj, "results_num_requests_started")
	r.countAt(&r.Completed, obj, "results_num_completed_requests")
	r.countAt(&r.Failed, obj, "results_number_errors")
	if codes, ok := obj["results_error_code_frequency"].(string); ok && r.Failed > 0 {
		r.problem("requests failed with error codes %s (results_error_code_frequency)", codes)
	}
}

// llmperfLatencyKeys are the summary's latencies (seconds), each a flat
// family of keys: results_ttft_s_mean, _stddev, _min, _max,
// _quantiles_p99.
var llmperfLatencyKeys = []struct{ kind, prefix string }{
	{TTFT, "results_ttft_s_"}, {ITL, "results_inter_token_latency_s_"}, {E2EL, "results_end_to_end_latency_s_"},
}

// llmperfLatencies reads each latency's family of keys as a block.
func (r *Record) llmperfLatencies(obj map[string]any) {
	for _, l := range llmperfLatencyKeys {
		block := map[string]any{}
		for key, v := range obj {
			if stat, ok := strings.CutPrefix(key, l.prefix); ok {
				block[strings.TrimPrefix(stat, "quantiles_")] = v
			}
		}
		r.latencyBlock(l.kind, 1000, block)
	}
}

// llmperfResponseMetrics are the per-request values whose means over the
// requests without an error code the summary gives (its *_mean keys).
var llmperfResponseMetrics = []struct{ name, key, kind string }{
	{"request_output_throughput", "request_output_throughput_token_per_s", ""},
	{"mean_ttft_s", "ttft_s", TTFT},
	{"mean_itl_s", "inter_token_latency_s", ITL},
	{"mean_e2el_s", "end_to_end_latency_s", E2EL},
}

// parseLLMPerfResponses reads LLMPerf's *_individual_responses.json: one
// object per request started, failed when it has an error_code. It holds
// no start or end of the test, so no throughput of the run: its headline
// is the mean output throughput of a request.
func (r *Record) parseLLMPerfResponses(data []byte, _ Spec) {
	raw, err := decodeObjectList(data)
	if err != nil {
		r.unreadable("does not parse as LLMPerf's individual responses (a JSON array of objects): %v", err)
		return
	}
	if len(raw) == 0 {
		r.unreadable("holds no response")
		return
	}
	codes, firstMsg := map[string]int{}, map[string]string{}
	sums := make([]float64, len(llmperfResponseMetrics))
	counts := make([]int, len(llmperfResponseMetrics))
	for i, resp := range raw {
		code, ok := resp["error_code"]
		if !ok {
			r.unreadable("response %d has no error_code: is it an LLMPerf individual_responses file?", i+1)
			return
		}
		if code != nil {
			c := fmt.Sprint(code)
			codes[c]++
			if msg, _ := resp["error_msg"].(string); msg != "" && firstMsg[c] == "" {
				firstMsg[c] = msg
			}
			continue
		}
		for m, metric := range llmperfResponseMetrics {
			if f, ok := number(resp[metric.key]); ok {
				sums[m] += f
				counts[m]++
			}
		}
	}
	r.Requested = len(raw)
	r.Failed = sumValues(codes)
	r.Completed = r.Requested - r.Failed
	for m, metric := range llmperfResponseMetrics {
		if counts[m] > 0 {
			r.Metrics[metric.name] = sums[m] / float64(counts[m])
			if metric.kind != "" { // the scheme's name too, in ms
				r.latency("mean", metric.kind, 1000*sums[m]/float64(counts[m]))
			}
		}
	}
	if r.Failed > 0 {
		r.problem("requests failed with error codes %s", codeList(codes, firstMsg))
	}
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// codeList says error codes with their counts and first messages, in
// code order: {-100: 49 "Output too few tokens 102", 429: 130}.
func codeList(codes map[string]int, firstMsg map[string]string) string {
	parts := make([]string, 0, len(codes))
	for _, c := range slices.Sorted(maps.Keys(codes)) {
		part := fmt.Sprintf("%s: %d", c, codes[c])
		if msg := firstMsg[c]; msg != "" {
			part += fmt.Sprintf(" %q", truncateText(msg, 120))
		}
		parts = append(parts, part)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// truncateText cuts s to at most n bytes, at a rune boundary, marking the cut.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
