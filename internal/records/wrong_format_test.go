package records

import (
	"cmp"
	"testing"
)

// A real file fed to a format it is not of is unreadable: its root cause
// is throughput-invalid, never failed work.
func TestWrongFormatIsUnreadable(t *testing.T) {
	for _, c := range []struct{ file, format string }{
		{"vllm/sweep-seqs4-run0.json", "mlperf"},
		{"console/vllm-qwen2-7b-10-prompts.txt", "mlperf"},
		{"mlperf/offline-valid-10-samples-summary.txt", "console"},
		{"mlperf/offline-valid-10-samples-detail.txt", "aiperf"},
		{"mlperf/offline-valid-10-samples-summary.txt", "k6"},
		{"vllm/sweep-seqs4-run0.json", "k6"},
		{"k6/qr-summary-export-all-passed.json", "vllm"},
		{"k6/handlesummary-thresholds-ok.json", "mlperf"},
		{"pgbench/cluster-380-clients-prepared-valid.txt", "k6"},
		{"pgbench/cluster-380-clients-prepared-valid.txt", "mlperf"},
		{"k6/qr-summary-export-all-passed.json", "pgbench"},
		{"console/vllm-qwen2-7b-10-prompts.txt", "pgbench"},
		{"pgbench/cluster-380-clients-prepared-valid.txt", "sysbench"},
		{"sysbench/1.0.20-read-only-100-threads-300s.txt", "pgbench"},
		{"sysbench/1.0.20-read-only-100-threads-300s.txt", "console"},
		{"mlperf/offline-valid-10-samples-summary.txt", "sysbench"},
	} {
		r := Parse(corpusFile(t, c.file), c.file, Spec{Format: c.format, Metric: cmp.Or(DefaultMetric(c.format), "output_throughput")})
		if r.Valid || !r.Unreadable {
			t.Errorf("%s as %s: valid %v unreadable %v, problems %q", c.file, c.format, r.Valid, r.Unreadable, r.Problems)
		}
	}
}

// Another tool's file that holds a key of this format's name (a duration)
// but no count and not the headline is no record of this format: it was
// read as one whose requests did not say they completed, and blamed on
// failed requests. A truncated console summary that kept only its
// duration is unreadable so too. Failed on the old code.
func TestWrongFormatWithAKeyOfItsNameIsUnreadable(t *testing.T) {
	for _, c := range []struct{ name, format, data, problem string }{
		{"another tool's stats", "vllm", `{"duration": 60.2, "num_requests": 1000, "num_failures": 3}`,
			"holds neither a count nor the output token throughput a vllm record has (only duration): is it a vllm record?"},
		{"a summary cut after its duration", "console", "============ Serving Benchmark Result ============\nBenchmark duration (s):                  46.96\n",
			"holds neither a count nor the output token throughput a console record has (only duration): is it a console record?"},
	} {
		r := Parse([]byte(c.data), "out.json", Spec{Format: c.format, Requested: 120, Metric: "output_throughput"})
		if r.Valid || !r.Unreadable || r.Problems[0] != c.problem {
			t.Errorf("%s as %s: valid %v unreadable %v, problems %q", c.name, c.format, r.Valid, r.Unreadable, r.Problems)
		}
	}
}
