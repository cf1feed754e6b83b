package records

import "slices"

// pytestBenchmark is one benchmark of a pytest-benchmark --benchmark-json
// file: its names and its statistics per round (seconds; null where
// Python wrote NaN).
type pytestBenchmark struct {
	Name     string `json:"name"`
	Fullname string `json:"fullname"`
	Stats    *struct {
		Min    *float64 `json:"min"`
		Max    *float64 `json:"max"`
		Mean   *float64 `json:"mean"`
		Stddev *float64 `json:"stddev"`
		Median *float64 `json:"median"`
		Ops    *float64 `json:"ops"`
		Rounds any      `json:"rounds"`
	} `json:"stats"`
}

// parsePytestBenchmark reads pytest-benchmark's --benchmark-json file: the
// benchmark Spec.Result names by its fullname (file.py::test[param]) or,
// where no other benchmark shares it, its name; its rounds are the units
// of work. The file says nothing of failures: a benchmark that raised is
// not written, and is then a name the file lacks.
func (r *Record) parsePytestBenchmark(data []byte, spec Spec) {
	r.Unit = UnitRuns
	benchmarks, ok := decodeList[pytestBenchmark](r, data, "benchmarks", "a pytest-benchmark --benchmark-json file")
	if !ok {
		return
	}
	i, ok := r.choose(pytestNames(benchmarks, spec.Result), spec.Result)
	if !ok {
		return
	}
	b := benchmarks[i]
	if b.Stats == nil {
		r.problem("benchmark %q has no stats", b.Fullname)
		return
	}
	r.metricsGiven(map[string]*float64{"mean_time": b.Stats.Mean, "median_time": b.Stats.Median, "min_time": b.Stats.Min, "max_time": b.Stats.Max, "ops_per_second": b.Stats.Ops})
	r.optionalMetricsGiven(map[string]*float64{"stddev_time": b.Stats.Stddev})
	if n, ok := r.count("rounds", b.Stats.Rounds); ok {
		r.Completed = n
	}
}

// pytestNames are the names to choose from: the fullnames, or the short
// names when want is one of them and no fullname (so a name two files'
// tests share is ambiguous).
func pytestNames(benchmarks []pytestBenchmark, want string) []string {
	full := make([]string, len(benchmarks))
	short := make([]string, len(benchmarks))
	for i, b := range benchmarks {
		full[i], short[i] = b.Fullname, b.Name
	}
	if want != "" && !slices.Contains(full, want) && slices.Contains(short, want) {
		return short
	}
	return full
}
