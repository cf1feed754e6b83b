package records

import (
	"bytes"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// goBenchmark is one benchmark of a Go benchmark run: every result line
// of its name (a sample each, -count of them) in one package.
type goBenchmark struct {
	name, pkg string
	samples   []benchfmt.Result
}

// parseGoBench reads `go test -bench` output through golang.org/x/perf's
// benchfmt, as benchstat does: the benchmark Spec.Result names (benchfmt's
// name, without "Benchmark", with its -GOMAXPROCS suffix), its result
// lines the units of work, each metric the median of its samples. The
// test's own lines (PASS, --- FAIL:, panic:, FAIL, exit status N) are its
// verdict.
func (r *Record) parseGoBench(data []byte, spec Spec) {
	r.Unit = UnitRuns
	outcome := goTestOutcome(data)
	benchmarks, ok := r.goBenchmarks(data, outcome.failLines)
	if !ok {
		return
	}
	switch {
	case len(outcome.failures) > 0:
		r.verdict(false, outcome.failures...)
	case outcome.passed:
		r.verdict(true)
	}
	names := make([]string, len(benchmarks))
	for i, b := range benchmarks {
		names[i] = b.name
	}
	failedRuns := outcome.failedNamed(namedOrSole(spec.Result, names))
	if len(outcome.failures) > 0 && (len(names) == 0 || spec.Result != "" && !slices.Contains(names, spec.Result)) {
		// The test binary failed and left no result of this benchmark:
		// its run is the one that failed, not a name the file lacks
		// (the name was chosen: it is the failed benchmark's).
		r.chose = true
		r.Completed, r.Failed = 0, max(failedRuns, 1)
		return
	}
	i, ok := r.choose(names, spec.Result)
	if !ok {
		return
	}
	r.Completed, r.Failed = len(benchmarks[i].samples), failedRuns
	r.goBenchMetrics(benchmarks[i].samples)
}

// namedOrSole is the benchmark a record is of: the one named, or the
// file's only one.
func namedOrSole(want string, names []string) string {
	if want == "" && len(names) == 1 {
		return names[0]
	}
	return want
}

// goBenchmarks groups the file's result lines by benchmark and package,
// in the file's order. A line benchfmt cannot read is a problem naming
// it, unless it is a failure line (its failure is the verdict).
func (r *Record) goBenchmarks(data []byte, failLines []int) ([]goBenchmark, bool) {
	var benchmarks []goBenchmark
	reader := benchfmt.NewReader(bytes.NewReader(data), r.File)
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.Result:
			name, pkg := rec.Name.String(), rec.GetConfig("pkg")
			at := slices.IndexFunc(benchmarks, func(b goBenchmark) bool { return b.name == name && b.pkg == pkg })
			if at < 0 {
				at = len(benchmarks)
				benchmarks = append(benchmarks, goBenchmark{name: name, pkg: pkg})
			}
			benchmarks[at].samples = append(benchmarks[at].samples, *rec.Clone())
		case *benchfmt.SyntaxError:
			if _, line := rec.Pos(); !slices.Contains(failLines, line) {
				r.problem("a benchmark line benchfmt cannot read: %v", rec)
			}
		}
	}
	if err := reader.Err(); err != nil {
		r.unreadable("does not read as Go benchmark output: %v", err)
		return nil, false
	}
	return benchmarks, true
}

// goBenchUnits name the metrics of the units the testing package writes;
// a unit of b.ReportMetric's is named for itself (see goBenchMetric).
var goBenchUnits = map[string]string{"ns/op": "time_per_op", "MB/s": "mb_per_second", "B/op": "bytes_per_op", "allocs/op": "allocs_per_op"}

// goBenchMetrics sets each unit's metric to the median of the samples, as
// benchstat summarises them: one slow sample of ten moves a mean, not
// the median. Values are the file's own, in its units (ns/op, not
// benchfmt's tidied sec/op). Only ns/op is the headline: a zero of any
// other unit (no allocation per op) is a measurement, left out.
func (r *Record) goBenchMetrics(samples []benchfmt.Result) {
	values := map[string][]float64{}
	var units []string
	for _, s := range samples {
		for _, v := range s.Values {
			unit, value := v.Unit, v.Value
			if v.OrigUnit != "" {
				unit, value = v.OrigUnit, v.OrigValue
			}
			if _, seen := values[unit]; !seen {
				units = append(units, unit)
			}
			values[unit] = append(values[unit], value)
		}
	}
	for _, unit := range units {
		m := median(values[unit])
		switch name := goBenchMetric(unit); {
		case unit == "ns/op":
			r.Metrics[name] = m
		case name != "":
			r.optionalMetric(name, m)
		}
	}
}

// goBenchMetric names a unit's metric: goBenchUnits, or the unit in snake
// case, "/" read as "per" and "%" as "percent" (a b.ReportMetric "ns/elem"
// is ns_per_elem); "" for a unit of symbols alone, which is left out.
func goBenchMetric(unit string) string {
	if name, ok := goBenchUnits[unit]; ok {
		return name
	}
	var b strings.Builder
	for _, c := range strings.ToLower(strings.NewReplacer("/", " per ", "%", " percent ").Replace(unit)) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
