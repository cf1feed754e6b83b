package records

import (
	"testing"

	"github.com/abbench/abbench/scenarios"
)

// A real file of another tool given to each of these formats is
// unreadable, its first problem the root cause (the file is not the
// format's), and no count says anything failed.
func TestBenchToolFormatsReadOtherToolsFilesAsUnreadable(t *testing.T) {
	files := map[string]string{
		"hyperfine":        "hyperfine/1brc-two-commands.json",
		"gobench":          "gobench/benchstat-crc-old.txt",
		"pytest-benchmark": "pytest-benchmark/fib-two-benchmarks.json",
		"fio":              "fio/randrw-10s-fio-3.36.json",
		"nccl-tests":       "nccl-tests/h100x16-two-node-all-reduce-validated.txt",
		"vllm":             "vllm/sweep-seqs4-run0.json",
	}
	for _, format := range []string{"hyperfine", "gobench", "pytest-benchmark", "fio", "nccl-tests"} {
		for owner, rel := range files {
			if owner == format {
				continue
			}
			r := Parse(realRecord(t, rel), rel, Spec{Format: format, Metric: DefaultMetric(format)})
			if r.Valid || !r.Unreadable || r.Failed > 0 {
				t.Errorf("%s read as %s: valid %v unreadable %v failed %d, problems %q", rel, format, r.Valid, r.Unreadable, r.Failed, r.Problems)
			}
		}
	}
}

// Every format here has a default headline, and its name reads the way
// the metric improves (scenarios.MetricHigherIsBetter reads the name).
func TestBenchToolDefaultMetrics(t *testing.T) {
	for format, want := range map[string]struct {
		metric string
		higher bool
	}{"hyperfine": {"mean_time", false}, "gobench": {"time_per_op", false}, "pytest-benchmark": {"mean_time", false},
		"fio": {"iops", true}, "nccl-tests": {"bus_bandwidth", true}} {
		got := DefaultMetric(format)
		if got != want.metric || scenarios.MetricHigherIsBetter(got) != want.higher {
			t.Errorf("%s: default %q (higher is better: %v), want %q (%v)", format, got, scenarios.MetricHigherIsBetter(got), want.metric, want.higher)
		}
	}
	if DefaultMetric("regex") != "" {
		t.Errorf("regex has a default metric")
	}
}
