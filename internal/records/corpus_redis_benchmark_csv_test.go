package records

import (
	"bytes"
	"strings"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// Every default test against Redis with one client; this run's is PING_INLINE.
		"redis-benchmark-csv/redis-all-tests-1-client.csv": {Format: "redis-benchmark-csv", Result: "PING_INLINE", Metric: "requests_per_second", Unit: UnitRuns,
			Metrics: map[string]float64{"requests_per_second": 21092.60, "mean_latency_ms": 0.045, "min_latency_ms": 0.008, "p50_latency_ms": 0.047,
				"p95_latency_ms": 0.055, "p99_latency_ms": 0.079, "max_latency_ms": 0.463}, Completed: 1, Failed: 0, Valid: true},
		"redis-benchmark-csv/valkey-all-tests-pipeline-100.csv": {Format: "redis-benchmark-csv", Result: "PING_INLINE", Metric: "requests_per_second", Unit: UnitRuns,
			Metrics: map[string]float64{"requests_per_second": 3846153.75, "p99_latency_ms": 0.319}, Completed: 1, Failed: 0, Valid: true},
		// One test (-t get): no result to name.
		"redis-benchmark-csv/redis-get-only.csv": {Format: "redis-benchmark-csv", Metric: "requests_per_second", Unit: UnitRuns,
			Metrics: map[string]float64{"requests_per_second": 207900.20, "mean_latency_ms": 0.030}, Completed: 1, Failed: 0, Valid: true},
	})
}

// The scenario's result picks a test; a file of several tests without
// one, a test it does not hold, or a test it holds twice is unreadable,
// naming what it holds: never whichever row came first.
func TestRedisBenchmarkCSVChoosesTheTest(t *testing.T) {
	all := corpusBytes(t, "redis-benchmark-csv/redis-all-tests-1-client.csv")
	get := corpusBytes(t, "redis-benchmark-csv/redis-get-only.csv")
	r := Parse(all, "b.csv", Spec{Format: "redis-benchmark-csv", Metric: "requests_per_second", Result: "GET"})
	if !r.Valid || r.Metrics["requests_per_second"] != 21190.93 || r.Metrics["p99_latency_ms"] != 0.111 {
		t.Errorf("GET: valid %v, metrics %v, problems %q", r.Valid, r.Metrics, r.Problems)
	}
	twice := append(bytes.Clone(get), bytes.SplitAfterN(get, []byte("\n"), 2)[1]...) // edit: the GET row again
	for name, c := range map[string]struct {
		data   []byte
		result string
		says   string
	}{
		"no result":      {all, "", `holds 21 results ("PING_INLINE", "PING_MBULK", "SET", "GET"`},
		"an absent test": {get, "SET", `holds no result named "SET" (it holds "GET")`},
		"a test twice":   {twice, "GET", `holds 2 results named "GET"`},
		"no 6.2+ header": {bytes.SplitAfterN(get, []byte("\n"), 2)[1], "", `is not redis-benchmark --csv of version 6.2 or later`},
		"another tool's": {corpusBytes(t, "wrk/cpp-server-latency-distribution.txt"), "", "does not parse as redis-benchmark --csv"},
	} {
		r := Parse(c.data, "b.csv", Spec{Format: "redis-benchmark-csv", Metric: "requests_per_second", Result: c.result})
		if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], c.says) {
			t.Errorf("%s: valid %v unreadable %v, problems %q; want first %q", name, r.Valid, r.Unreadable, r.Problems, c.says)
		}
	}
}

// A latency of 0.000 ms (LRANGE_600's minimum) is below what
// redis-benchmark prints: left out, not a reason to censor the test.
func TestRedisBenchmarkCSVZeroLatency(t *testing.T) {
	r := Parse(corpusBytes(t, "redis-benchmark-csv/redis-all-tests-1-client.csv"), "b.csv", Spec{Format: "redis-benchmark-csv", Metric: "requests_per_second", Result: "LRANGE_600 (first 600 elements)"})
	if _, ok := r.Metrics["min_latency_ms"]; !r.Valid || ok || r.Metrics["requests_per_second"] != 4755.34 {
		t.Errorf("valid %v, metrics %v, problems %q", r.Valid, r.Metrics, r.Problems)
	}
}
