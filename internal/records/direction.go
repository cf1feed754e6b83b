package records

import (
	"slices"
	"strings"
)

// lowerIsBetter are words of metric names that improve downwards: times
// and latencies, their percentiles, and costs of one operation (Go's
// bytes_per_op, allocs_per_op) or of a cache (memtier's misses).
var lowerIsBetter = []string{"latency", "duration", "ttft", "tpot", "itl", "e2el", "time", "ms", "ns", "p50", "p90", "p95", "p99", "p999", "delay", "wait", "op", "allocs", "misses"}

// HigherIsBetter says which way a metric improves, from its name: a name
// with a word of time, latency or cost in it (p99_ttft_ms, mean_itl,
// duration, bytes_per_op) improves downwards; throughput, bandwidth and
// anything else upwards.
func HigherIsBetter(metric string) bool {
	words := strings.FieldsFunc(strings.ToLower(metric), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' })
	for _, w := range words {
		if slices.Contains(lowerIsBetter, w) {
			return false
		}
	}
	return true
}
