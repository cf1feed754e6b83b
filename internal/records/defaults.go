package records

// defaultMetrics are the headline metric of each format that has one: the
// metric a scenario compares when it names none, the number its tool leads
// with. A format whose records hold no single headline (a regex names its
// own) has no row.
var defaultMetrics = map[string]string{
	"mlperf":              "samples_per_second",
	"k6":                  "request_throughput",
	"pgbench":             "transactions_per_second",
	"sysbench":            "transactions_per_second",
	"hyperfine":           "mean_time",
	"gobench":             "time_per_op",
	"pytest-benchmark":    "mean_time",
	"fio":                 "iops",
	"nccl-tests":          "bus_bandwidth",
	"wrk":                 "requests_per_second",
	"memtier":             "ops_per_second",
	"redis-benchmark-csv": "requests_per_second",
	"aiperf":              "output_throughput",
	"genai-perf":          "output_throughput",
	"guidellm":            "output_throughput",
	"inference-perf":      "output_throughput",
	"llmperf":             "output_throughput",
	"llmperf-responses":   "request_output_throughput",
	"trtllm-bench":        "output_throughput",
}

// DefaultMetric is the format's default headline metric, "" for a format
// without one (the scenario must name its metric, else the scenarios'
// default applies).
func DefaultMetric(format string) string { return defaultMetrics[format] }
