package compare

import "strings"

// metricUnits name a metric's unit by how its name ends (the names record
// formats give their numbers), longest ending first.
var metricUnits = []struct{ suffix, unit string }{
	{"token_throughput", "tokens/s"}, {"_gbps", "GB/s"}, {"_mbps", "MB/s"}, {"_per_s", "/s"},
	{"_ms", "ms"}, {"_us", "µs"}, {"_ns", "ns"}, {"_s", "s"}, {"_pct", "%"}, {"rps", "requests/s"}, {"qps", "queries/s"},
	// hyperfine's and pytest-benchmark's times (mean_time, user_time) are
	// seconds (docs/evidence.md); a rate per second, per second.
	{"_time", "s"}, {"_per_second", "/s"}, {"_per_op", "/op"},
}

// metricUnitsExact are the names whose ending says nothing: the serving
// benchmarks' (vLLM, SGLang, AIPerf) throughputs.
var metricUnitsExact = map[string]string{
	"output_throughput": "tokens/s", "input_throughput": "tokens/s", "total_throughput": "tokens/s",
	"request_throughput": "requests/s", "goodput": "requests/s",
	// go test -bench's, as benchstat names their units.
	"time_per_op": "ns/op", "mb_per_second": "MB/s", "bytes_per_op": "B/op", "allocs_per_op": "allocs/op",
	"ops_per_second": "ops/s", "transactions_per_second": "transactions/s",
}

// MetricUnit is the unit of a metric as its name says it, or "" when the
// name does not: a plot's axis and a CSV's header name it.
func MetricUnit(metric string) string {
	if u, ok := metricUnitsExact[metric]; ok {
		return u
	}
	for _, m := range metricUnits {
		if strings.HasSuffix(metric, m.suffix) {
			return m.unit
		}
	}
	return ""
}

// MetricLabel is the metric with its unit, "output_throughput (tokens/s)",
// for an axis.
func MetricLabel(metric string) string {
	if u := MetricUnit(metric); u != "" {
		return metric + " (" + u + ")"
	}
	return metric
}
