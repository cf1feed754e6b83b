package records

// defaultMetrics is each format's headline metric: the one a scenario
// compares when it names none. A format without a row has no default.
var defaultMetrics = map[string]string{
	"aiperf":            "output_throughput",
	"genai-perf":        "output_throughput",
	"guidellm":          "output_throughput",
	"inference-perf":    "output_throughput",
	"llmperf":           "output_throughput",
	"llmperf-responses": "request_output_throughput",
	"trtllm-bench":      "output_throughput",
}

// DefaultMetric is the headline metric of format, "" for a format without one.
func DefaultMetric(format string) string { return defaultMetrics[format] }
