package records

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// inferencePerfMetrics are a lifecycle report's throughputs and mean
// latencies (seconds, as inference-perf writes them), under abbench's names.
var inferencePerfMetrics = []metricPath{
	{"output_throughput", at("successes", "throughput", "output_tokens_per_sec")},
	{"request_throughput", at("successes", "throughput", "requests_per_sec")},
	{"total_token_throughput", at("successes", "throughput", "total_tokens_per_sec")},
	{"input_throughput", at("successes", "throughput", "input_tokens_per_sec")},
	{"mean_request_latency_s", at("successes", "latency", "request_latency", "mean")},
	{"mean_ttft_s", at("successes", "latency", "time_to_first_token", "mean")},
	{"mean_tpot_s", at("successes", "latency", "time_per_output_token", "mean")},
	{"mean_itl_s", at("successes", "latency", "inter_token_latency", "mean")},
}

// inferencePerfLatencies are a lifecycle report's latencies of its
// successful requests, in seconds.
var inferencePerfLatencies = []toolLatency{
	{TTFT, at("successes", "latency", "time_to_first_token"), 1000},
	{TPOT, at("successes", "latency", "time_per_output_token"), 1000},
	{ITL, at("successes", "latency", "inter_token_latency"), 1000},
	{E2EL, at("successes", "latency", "request_latency"), 1000},
}

// parseInferencePerf reads a kubernetes-sigs/inference-perf lifecycle
// report (a stage's or the summary): load_summary.count requests sent,
// successes.count and failures.count of them, failures.by_label naming
// why. Its Prometheus report is refused: it holds the model server's
// counters over the run, which count no failed request (inference-perf
// writes its failures and load_summary empty) and are not the requests
// this client sent.
func (r *Record) parseInferencePerf(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as an inference-perf report: %v", err)
		return
	}
	if _, ok := obj["successes"].(map[string]any); !ok {
		r.unreadable("has no successes: is it an inference-perf lifecycle report?")
		return
	}
	if _, sent := lookup(obj, "load_summary", "count"); !sent {
		r.unreadable("is no lifecycle report (no load_summary.count): inference-perf's Prometheus report counts the model server's requests, not this run's, and no failures; read its lifecycle report (summary_lifecycle_metrics.json, or a stage's)")
		return
	}
	r.flags(obj, spec.Flag)
	r.metricsAt(obj, inferencePerfMetrics)
	r.latenciesAt(obj, inferencePerfLatencies)
	r.countAt(&r.Requested, obj, "load_summary", "count")
	r.countAt(&r.Completed, obj, "successes", "count")
	r.countAt(&r.Failed, obj, "failures", "count")
	if r.Requested >= 0 && r.Completed >= 0 && r.Failed >= 0 && r.Completed+r.Failed != r.Requested {
		r.problem("successes.count %d and failures.count %d are not the load_summary.count %d requests sent", r.Completed, r.Failed, r.Requested)
	}
	if labels, ok := lookup(obj, "failures", "by_label"); ok && r.Failed > 0 {
		r.problem("failed requests by label: %s", inferencePerfLabels(labels))
	}
}

// inferencePerfLabels says failures.by_label ({label: {count, messages}})
// as label: count, most first.
func inferencePerfLabels(v any) string {
	labels, _ := v.(map[string]any)
	type label struct {
		name  string
		count float64
	}
	var all []label
	for name, l := range labels {
		n, _ := lookup(l, "count")
		f, _ := number(n)
		all = append(all, label{name, f})
	}
	slices.SortFunc(all, func(a, b label) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.name, b.name))
	})
	parts := make([]string, len(all))
	for i, l := range all {
		parts[i] = fmt.Sprintf("%s: %g", l.name, l.count)
	}
	if len(parts) == 0 {
		return "none given"
	}
	return strings.Join(parts, ", ")
}
