package records

import "testing"

// TestHigherIsBetterReadsTheName: times, latencies and costs of one
// operation improve downwards; throughputs, rates and bandwidths upwards.
func TestHigherIsBetterReadsTheName(t *testing.T) {
	for metric, want := range map[string]bool{
		"output_throughput": true, "requests_per_second": true, "bus_bandwidth": true, "iops": true, "ops_per_second": true,
		"mean_time": false, "p99_latency_ms": false, "time_per_op": false, "bytes_per_op": false, "allocs_per_op": false,
		"ns_per_elem": false, "misses_per_second": false, "duration": false, "p999_latency_ms": false,
	} {
		if got := HigherIsBetter(metric); got != want {
			t.Errorf("%s: higher is better %v, want %v", metric, got, want)
		}
	}
}
