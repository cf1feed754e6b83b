package records

// defaultMetrics are the metric a scenario compares when it names none,
// by format: each format's headline, the number its tool leads with.
var defaultMetrics = map[string]string{
	"mlperf":   "samples_per_second",
	"k6":       "request_throughput",
	"pgbench":  "transactions_per_second",
	"sysbench": "transactions_per_second",
}

// DefaultMetric is the format's headline metric; "" for a format
// without one (the scenario must name its metric).
func DefaultMetric(format string) string { return defaultMetrics[format] }
