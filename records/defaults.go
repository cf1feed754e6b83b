package records

// defaultMetrics are each format's headline metric, the one a scenario
// compares when it names none (throughput.metric), for the formats whose
// records do not carry abbench's serving metrics; a format without a row
// has the scenarios' default.
var defaultMetrics = map[string]string{
	"wrk":                 "requests_per_second",
	"memtier":             "ops_per_second",
	"redis-benchmark-csv": "requests_per_second",
}

// DefaultMetric is format's own headline metric, "" for a format without
// one (see defaultMetrics).
func DefaultMetric(format string) string { return defaultMetrics[format] }
