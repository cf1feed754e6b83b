package records

import "math"

// genaiPerfMetrics are the {unit, avg} blocks of profile_export_genai_perf.json
// abbench reads, under its names (latencies in ms, as GenAI-Perf writes them).
var genaiPerfMetrics = []metricPath{
	{"output_throughput", at("output_token_throughput", "avg")},
	{"request_throughput", at("request_throughput", "avg")},
	{"mean_request_latency_ms", at("request_latency", "avg")},
	{"mean_ttft_ms", at("time_to_first_token", "avg")},
	{"mean_itl_ms", at("inter_token_latency", "avg")},
}

// parseGenAIPerf reads NVIDIA GenAI-Perf's profile_export_genai_perf.json.
//
// Its request_count is not the requests sent: GenAI-Perf counts a request
// only when its response holds content it can read, and skips the others
// (an empty response, an SSE error event, a chunk that does not parse),
// while its request_throughput divides every request of the profile by
// the duration. The requests profiled are therefore request_throughput x
// duration, where duration = request_count x output_sequence_length.avg /
// output_token_throughput; those beyond request_count had no response
// GenAI-Perf could count, and the metrics leave them out. With
// --request-count (the configured count of input_config, in either of its
// layouts) Perf Analyzer measures exactly that many requests in one window.
func (r *Record) parseGenAIPerf(data []byte, spec Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as a GenAI-Perf profile export: %v", err)
		return
	}
	for _, key := range []string{"was_cancelled", "error_summary", "error_request_count", "records"} {
		if _, aiperf := obj[key]; aiperf {
			// AIPerf counts its failed requests: read as GenAI-Perf's
			// export, which has no such key, they would go unseen.
			r.unreadable("is an AIPerf export (it has %s, which GenAI-Perf never writes): read it with format aiperf", key)
			return
		}
	}
	r.flags(obj, spec.Flag)
	r.metricsAt(obj, genaiPerfMetrics)
	r.latenciesAt(obj, unitBlockLatencies)
	r.countAt(&r.Completed, obj, "request_count", "avg")
	configured, hasConfigured := genaiPerfConfiguredCount(obj["input_config"])
	profiled, hasProfiled := r.genaiPerfProfiled(obj)
	switch {
	case hasProfiled && hasConfigured && profiled != configured:
		r.problem("GenAI-Perf profiled %d requests (by its request_throughput), not the request_count %d configured", profiled, configured)
		r.Requested = profiled
	case hasProfiled:
		r.Requested = profiled
	case hasConfigured:
		r.Requested = configured
	}
	if r.Completed >= 0 && r.Requested > r.Completed && hasProfiled {
		r.problem("%d of the %d requests GenAI-Perf measured had no response it could count (empty or errored): its request_count (%d) and metrics leave them out",
			r.Requested-r.Completed, r.Requested, r.Completed)
	}
}

// genaiPerfProfiled derives the requests of the profile from the export's
// own metrics (see parseGenAIPerf), for a profile run of an LLM endpoint;
// false when the export lacks a term, or aggregates several profiles
// (process-export-files sums their throughputs, which breaks the identity).
func (r *Record) genaiPerfProfiled(obj map[string]any) (int, bool) {
	if sub, ok := lookup(obj, "input_config", "subcommand"); !ok || sub != "profile" {
		return 0, false
	}
	var terms [4]float64
	for i, key := range []string{"request_throughput", "request_count", "output_sequence_length", "output_token_throughput"} {
		v, _ := lookup(obj, key, "avg")
		f, ok := number(v)
		if !ok || f <= 0 {
			return 0, false
		}
		terms[i] = f
	}
	requests := terms[0] * terms[1] * terms[2] / terms[3]
	if whole := math.Round(requests); math.Abs(requests-whole) <= 1e-6*max(1, whole) && whole < math.MaxInt32 {
		return int(whole), true
	}
	r.problem("request_throughput, request_count, output_sequence_length and output_token_throughput give %g requests profiled, not a whole number: the export's metrics disagree", requests)
	return 0, false
}

// genaiPerfConfiguredCount is the request count GenAI-Perf was told to
// measure: request_count in the flat input_config of the older releases
// (0 there means none), perf_analyzer.measurement {mode: request_count,
// num} in the config-file layout of the newer ones.
func genaiPerfConfiguredCount(config any) (int, bool) {
	if v, ok := lookup(config, "request_count"); ok {
		return positiveCount(v)
	}
	if mode, _ := lookup(config, "perf_analyzer", "measurement", "mode"); mode != "request_count" {
		return 0, false
	}
	v, _ := lookup(config, "perf_analyzer", "measurement", "num")
	return positiveCount(v)
}

// positiveCount reads a count above 0 from a configuration value.
func positiveCount(v any) (int, bool) {
	f, ok := number(v)
	if !ok || f <= 0 || f != math.Trunc(f) || f >= math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}
