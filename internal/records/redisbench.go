package records

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// redisBenchmarkColumns are the metric names of redis-benchmark --csv's
// columns (6.2 and later: a header, then a row per test); a column not
// listed keeps its own name.
var redisBenchmarkColumns = map[string]string{"rps": "requests_per_second", "avg_latency_ms": "mean_latency_ms"}

// parseRedisBenchmarkCSV reads redis-benchmark --csv: each row is one test
// (PING_INLINE, SET, GET, "LRANGE_100 (first 100 elements)"), named by the
// scenario's throughput.result when the file holds several. Its unit is
// the test run: redis-benchmark writes a test's row only when all its
// requests were answered, because an error reply or a lost connection
// ends redis-benchmark (exit 1) before the row is written. A latency of
// 0.000 ms is below the three decimals redis-benchmark prints, and left
// out.
func (r *Record) parseRedisBenchmarkCSV(data []byte, spec Spec) {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	switch {
	case err != nil:
		r.unreadable("does not parse as redis-benchmark --csv: %v", err)
		return
	case len(rows) == 0 || len(rows[0]) < 2 || rows[0][0] != "test" || rows[0][1] != "rps":
		r.unreadable(`is not redis-benchmark --csv of version 6.2 or later (a header "test","rps",...)`)
		return
	}
	header, tests := rows[0], rows[1:]
	names := make([]string, len(tests))
	for i, row := range tests {
		names[i] = row[0]
	}
	r.Unit = UnitRuns
	at, ok := r.choose(names, spec.Result)
	if !ok {
		return
	}
	if n := countOf(names, names[at]); n > 1 {
		r.unreadable("holds %d tests named %q: give abbench one run of it per file", n, names[at])
		return
	}
	r.Requested, r.Completed, r.Failed = 1, 1, 0
	for i, col := range header[1:] {
		name, cell := col, tests[at][i+1]
		if n, ok := redisBenchmarkColumns[col]; ok {
			name = n
		}
		v, err := strconv.ParseFloat(cell, 64)
		switch {
		case err != nil:
			r.problem("%s of test %q is %q, not a number", col, names[at], cell)
		case v != 0 || name == "requests_per_second":
			r.Metrics[name] = v
		}
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, s := range names {
		if s == name {
			n++
		}
	}
	return n
}
