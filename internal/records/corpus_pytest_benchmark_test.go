package records

import (
	"strings"
	"testing"
)

func init() { addCorpus(pytestBenchmarkCorpus) }

// pytest-benchmark --benchmark-json, the benchmark named by fullname or
// by name; its rounds are the runs.
var pytestBenchmarkCorpus = map[string]corpusCase{
	"pytest-benchmark/fib-two-benchmarks.json": {Format: "pytest-benchmark", Result: "bench.py::test_fib_10", Metric: "mean_time",
		Metrics: map[string]float64{"mean_time": 2.408868133322941e-05, "median_time": 2.2300000000363696e-05, "min_time": 2.2067000000181025e-05,
			"max_time": 0.0003125999999999962, "stddev_time": 6.175090189861328e-06, "ops_per_second": 41513.272817492856},
		Unit: UnitRuns, Completed: 38523, Failed: -1, Valid: true},
	"pytest-benchmark/fib-and-sleep-four-benchmarks.json": {Format: "pytest-benchmark", Result: "test_sleep_2", Metric: "mean_time",
		Metrics: map[string]float64{"mean_time": 2.0038430469999997, "median_time": 2.005124842999999, "min_time": 2.001044877,
			"max_time": 2.005173128, "stddev_time": 0.0018776587251587858, "ops_per_second": 0.49904108083570886},
		Unit: UnitRuns, Completed: 5, Failed: -1, Valid: true},
}

// A benchmark is named by its fullname, or by a name no other benchmark
// has: a name two benchmarks share (a minimal edit of the real file: the
// second benchmark given the first one's name, as two test files may) is
// ambiguous; one the file lacks (a benchmark whose test raised is not
// written) is unreadable, naming what the file holds.
func TestPytestBenchmarkNames(t *testing.T) {
	const rel = "pytest-benchmark/fib-two-benchmarks.json"
	clean := realRecord(t, rel)
	shared := realRecordEdited(t, rel, `"name": "test_fib_20"`, `"name": "test_fib_10"`, 1)
	for _, c := range []struct {
		data         []byte
		result, want string
		mean         float64
	}{
		{clean, "test_fib_20", "", 0.002985030672661863},
		{shared, "bench.py::test_fib_20", "", 0.002985030672661863},
		{shared, "test_fib_10", `holds 2 results named "test_fib_10"`, 0},
		{clean, "test_fib_30", `holds no result named "test_fib_30" (it holds "bench.py::test_fib_10", "bench.py::test_fib_20")`, 0},
		{clean, "", `holds 2 results ("bench.py::test_fib_10", "bench.py::test_fib_20")`, 0},
	} {
		r := Parse(c.data, rel, Spec{Format: "pytest-benchmark", Result: c.result, Metric: "mean_time"})
		switch {
		case c.want == "" && (!r.Valid || r.Metrics["mean_time"] != c.mean):
			t.Errorf("%q: valid %v mean %v, want %v (problems %q)", c.result, r.Valid, r.Metrics["mean_time"], c.mean, r.Problems)
		case c.want != "" && (!r.Unreadable || !strings.HasPrefix(r.Problems[0], c.want)):
			t.Errorf("%q: unreadable %v, problems %q, want first %q", c.result, r.Unreadable, r.Problems, c.want)
		}
	}
}
