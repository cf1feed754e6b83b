package records

import (
	"bytes"
	"strings"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// wrk -t4 -c100 -d10s --latency: every response a 2xx or 3xx, no socket error.
		"wrk/cpp-server-latency-distribution.txt": {Format: "wrk", Metric: "requests_per_second", Metrics: map[string]float64{
			"requests_per_second": 48268.48, "duration": 10.10, "mean_latency_ms": 1.90, "max_latency_ms": 64.56,
			"p50_latency_ms": 2.07, "p75_latency_ms": 2.39, "p90_latency_ms": 2.63, "p99_latency_ms": 3.81,
			"transfer_bytes_per_second": 16.85 * (1 << 20)}, Completed: 487530, Failed: 0, Valid: true},
		// wrk -t12 -c400 -d30s against a server that answered every request with an
		// error and closed the connection: wrk's own numbers name the cause.
		"wrk/all-non-2xx-socket-read-errors.txt": {Format: "wrk", Metric: "requests_per_second", Metrics: map[string]float64{
			"requests_per_second": 2931.77, "duration": 30.06, "mean_latency_ms": 13.81, "max_latency_ms": 1830},
			Completed: 0, Failed: 88124, Valid: false, Problem: "wrk counted socket errors: connect 0, read 88124, write 0, timeout 80"},
	})
}

// Failures wrk counts, each shown by a minimal edit of a real file (no
// real capture of these alone was published): each is censored naming
// wrk's own line, and the counts say how many of wrk's requests failed.
func TestWrkFailures(t *testing.T) {
	clean := corpusBytes(t, "wrk/cpp-server-latency-distribution.txt")
	failed := corpusBytes(t, "wrk/all-non-2xx-socket-read-errors.txt")
	const summary = "  487530 requests in 10.10s, 170.17MB read\n"
	checkEditedSample(t, Spec{Format: "wrk", Metric: "requests_per_second"}, []editedSample{
		{"edit: the failed run without its socket errors line", bytes.Replace(failed, []byte("  Socket errors: connect 0, read 88124, write 0, timeout 80\n"), nil, 1),
			0, 88124, []string{"wrk counted 88124 non-2xx or 3xx responses", "88124 of 88124 requests failed"}},
		{"edit: the clean run with 12 timeouts", bytes.Replace(clean, []byte(summary), []byte(summary+"  Socket errors: connect 0, read 0, write 0, timeout 12\n"), 1),
			487518, 12, []string{"wrk counted socket errors: connect 0, read 0, write 0, timeout 12", "12 of 487530 requests failed"}},
	})
}

// A file that is not one wrk summary is unreadable, its root cause: two
// runs' output appended (which run is this one's?), or another tool's.
func TestWrkUnreadable(t *testing.T) {
	clean := corpusBytes(t, "wrk/cpp-server-latency-distribution.txt")
	memtier := corpusBytes(t, "memtier/console-sets-only-20x50.txt")
	for name, c := range map[string]struct {
		data []byte
		says string
	}{
		"two runs appended":                   {append(append(clean, '\n'), clean...), "holds 2 wrk summaries"},
		"a memtier record":                    {memtier, "no wrk summary"},
		"the summary cut before Requests/sec": {clean[:bytes.Index(clean, []byte("Requests/sec"))], "no wrk summary"},
	} {
		r := Parse(c.data, "wrk.txt", Spec{Format: "wrk", Metric: "requests_per_second"})
		if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], c.says) {
			t.Errorf("%s: valid %v unreadable %v, problems %q; want first %q", name, r.Valid, r.Unreadable, r.Problems, c.says)
		}
	}
}
