package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// mlperfName turns one of LoadGen's labels (a summary line's, lowercased)
// or keys (a detail log's) into a metric name. LoadGen gives times in
// ns; the names say ms, as the values are (see setMLPerfMetric): a CPU run's
// latency of hours is 10^13 ns, past MaxPlausible. In the name, {p} is the
// label's percentile group as pNN (99.90 -> p999), {x} its min, max or
// mean, and {q} "query_" in a MultiStream run, whose latencies LoadGen
// gives per query (of several samples) rather than per sample.
type mlperfName struct {
	re   *lazyregexp.Regexp
	name string
}

func mlperfNames(pairs ...string) []mlperfName {
	names := make([]mlperfName, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		names = append(names, mlperfName{lazyregexp.New(pairs[i]), pairs[i+1]})
	}
	return names
}

// The summary's labels and the detail log's keys of the same quantity
// give the same name, so a scenario may read either file of a run.
var (
	mlperfSummaryNames = mlperfNames(
		`^(?:completed )?samples per second$`, "samples_per_second",
		`^scheduled samples per second$`, "scheduled_samples_per_second",
		`^(?:completed )?tokens per second$`, "tokens_per_second",
		`^(?:completed )?tokens per second \(inferred\)$`, "inferred_tokens_per_second",
		`^qps w/ loadgen overhead$`, "qps_with_loadgen_overhead",
		`^qps w/o loadgen overhead$`, "qps_without_loadgen_overhead",
		`^(?P<x>min|max|mean) latency \(ns\)$`, "{x}_{q}latency_ms",
		`^(?P<p>[0-9.]+)(?:th)? percentile latency \(ns\)$`, "{p}_{q}latency_ms",
		`^(?P<x>min|max|mean) first token latency \(ns\)$`, "{x}_first_token_latency_ms",
		`^(?P<p>[0-9.]+)(?:th first token| percentile first token) (?:percentile )?latency \(ns\)$`, "{p}_first_token_latency_ms",
		`^(?P<x>min|max|mean) time per output token \(ns\)$`, "{x}_tpot_ms",
		`^(?P<p>[0-9.]+) percentile time to output token \(ns\)$`, "{p}_tpot_ms",
		`^early stopping (?P<p>[0-9.]+)th percentile estimate$`, "early_stopping_{p}_{q}latency_ms",
	)
	mlperfDetailNames = mlperfNames(
		`^result_(?:samples_per_second|completed_samples_per_sec)$`, "samples_per_second",
		`^result_scheduled_samples_per_sec$`, "scheduled_samples_per_second",
		`^result_(?:tokens_per_second|completed_tokens_per_second)$`, "tokens_per_second",
		`^result_inferred_(?:completed_)?tokens_per_second$`, "inferred_tokens_per_second",
		`^result_qps_with_loadgen_overhead$`, "qps_with_loadgen_overhead",
		`^result_qps_without_loadgen_overhead$`, "qps_without_loadgen_overhead",
		`^result_(?P<x>min|max|mean)_latency_ns$`, "{x}_latency_ms",
		`^result_(?P<x>min|max|mean)_query_latency_ns$`, "{x}_query_latency_ms",
		`^result_(?P<p>[0-9.]+)_percentile_latency_ns$`, "{p}_latency_ms",
		`^result_(?P<p>[0-9.]+)_percentile_per_query_latency_ns$`, "{p}_query_latency_ms",
		`^result_first_token_(?P<x>min|max|mean)_latency_ns$`, "{x}_first_token_latency_ms",
		`^result_first_token_(?P<p>[0-9.]+)_percentile_latency_ns$`, "{p}_first_token_latency_ms",
		`^result_time_to_output_token_(?P<x>min|max|mean)$`, "{x}_tpot_ms",
		`^result_time_per_output_token_(?P<p>[0-9.]+)_percentile_ns$`, "{p}_tpot_ms",
	)
	// The early stopping estimates are in the text LoadGen prints (the
	// detail log holds the same text on one line).
	mlperfEstimate = lazyregexp.New(`Early stopping ([0-9.]+)th percentile estimate: ([0-9]+)`)
)

// mlperfMetricName names a label or key by the first rule that matches
// it; false when none does.
func mlperfMetricName(rules []mlperfName, label string, multiStream bool) (string, bool) {
	for _, rule := range rules {
		sub := rule.re.FindStringSubmatch(label)
		if sub == nil {
			continue
		}
		name := rule.name
		for i, group := range rule.re.SubexpNames() {
			switch group {
			case "p":
				p, ok := percentileName(sub[i])
				if !ok {
					return "", false
				}
				name = strings.ReplaceAll(name, "{p}", p)
			case "x":
				name = strings.ReplaceAll(name, "{x}", sub[i])
			}
		}
		q := ""
		if multiStream {
			q = "query_"
		}
		return strings.ReplaceAll(name, "{q}", q), true
	}
	return "", false
}

// percentileName writes a percentile as LoadGen prints it (99.90, 90)
// in a metric name's spelling: p999, p90.
func percentileName(s string) (string, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v >= 100 {
		return "", false
	}
	return "p" + strings.ReplaceAll(strconv.FormatFloat(v, 'f', -1, 64), ".", ""), true
}

// setMLPerfMetric records a metric LoadGen may print twice (the Server
// summary's tokens per second, the SingleStream summary's 90th
// percentile): twice with different values is a problem. A time (named
// _ms) LoadGen gave in ns.
func (r *Record) setMLPerfMetric(name string, v float64) {
	if strings.HasSuffix(name, "_ms") {
		v /= 1e6
	}
	if old, ok := r.Metrics[name]; ok && old != v {
		r.problem("%s is given twice, as %g and %g", name, old, v)
		return
	}
	r.Metrics[name] = v
}

// mlperfEstimates reads the early stopping estimates of LoadGen's
// early stopping text.
func (r *Record) mlperfEstimates(text string, multiStream bool) {
	for _, m := range mlperfEstimate.FindAllStringSubmatch(text, -1) {
		name, ok := mlperfMetricName(mlperfSummaryNames, "early stopping "+m[1]+"th percentile estimate", multiStream)
		if v, err := strconv.ParseFloat(m[2], 64); ok && err == nil {
			r.setMLPerfMetric(name, v)
		}
	}
}

// earlyStoppingReason is LoadGen's text of an early stopping test the
// run failed, on one line without its bullets ("TPOT early stopping: Run
// unsuccessful. Processed 200 queries. Would need ..."); "" when it passed.
func earlyStoppingReason(which, text string) string {
	if !strings.Contains(text, "Run unsuccessful") {
		return ""
	}
	words := strings.Fields(strings.ReplaceAll(text, "*", " "))
	prefix := "early stopping"
	if which != "" {
		prefix = strings.ToUpper(which) + " early stopping"
	}
	return prefix + ": " + strings.Join(words, " ")
}
