package compare

import "strings"

// metricUnits name a metric's unit by how its name ends (the names record
// formats give their numbers), longest ending first.
var metricUnits = []struct{ suffix, unit string }{
	{"token_throughput", "tokens/s"}, {"_gbps", "GB/s"}, {"_mbps", "MB/s"}, {"_per_s", "/s"},
	{"_ms", "ms"}, {"_us", "µs"}, {"_ns", "ns"}, {"_s", "s"}, {"_pct", "%"}, {"rps", "requests/s"}, {"qps", "queries/s"},
}

// metricUnitsExact are the names whose ending says nothing: the serving
// benchmarks' (vLLM, SGLang, AIPerf) throughputs.
var metricUnitsExact = map[string]string{
	"output_throughput": "tokens/s", "input_throughput": "tokens/s", "total_throughput": "tokens/s",
	"request_throughput": "requests/s", "goodput": "requests/s",
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
