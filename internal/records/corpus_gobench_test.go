package records

import (
	"slices"
	"strings"
	"testing"
)

func init() { addCorpus(gobenchCorpus) }

const crc15 = "CRC32/poly=IEEE/size=15/align=0-8"

var (
	goPassed = true
	goFailed = false
)

// Go benchmark output, read through benchfmt: the benchmark named as
// benchfmt names it, each metric the median of its -count samples (the
// samples are listed, from the file, to check the median by hand).
var gobenchCorpus = map[string]corpusCase{
	// ns/op 44.6 47.3 44.6 46.3 50.7 45.8 46.8 44.3 47.7 50.6;
	// MB/s 336.59 317.29 336.14 323.80 295.90 327.41 320.56 338.48 314.52 296.42.
	"gobench/benchstat-crc-old.txt": {Format: "gobench", Result: crc15, Metric: "time_per_op",
		Metrics: map[string]float64{"time_per_op": (46.3 + 46.8) / 2, "mb_per_second": (320.56 + 323.80) / 2},
		Unit:    UnitRuns, Completed: 10, Failed: 0, Valid: true, Verdict: &goPassed},
	// ns/op 43.6 45.4 43.4 45.3 43.9 46.0 45.1 43.8 43.8 44.9;
	// MB/s 343.87 330.50 345.50 331.23 341.73 326.03 332.54 342.12 342.14 333.84.
	"gobench/benchstat-crc-new.txt": {Format: "gobench", Result: crc15, Metric: "time_per_op",
		Metrics: map[string]float64{"time_per_op": (43.9 + 44.9) / 2, "mb_per_second": (333.84 + 341.73) / 2},
		Unit:    UnitRuns, Completed: 10, Failed: 0, Valid: true, Verdict: &goPassed},
	// ns/op 4052123 4072122 4236652 4033154 4039300 4047106 4080614 4628050 4858420 4775885;
	// MB/s 24.68 24.56 23.60 24.79 24.76 24.71 24.51 21.61 20.58 20.94;
	// B/op 401490 401488 401489 401489 401490 401489 401489 401488 401495 401488; allocs/op 2.
	"gobench/suffixarray-10-runs.txt": {Format: "gobench", Result: "New/text=opticks/size=100K/bits=32-8", Metric: "time_per_op",
		Metrics: map[string]float64{"time_per_op": (4072122 + 4080614) / 2, "mb_per_second": (24.51 + 24.56) / 2, "bytes_per_op": 401489, "allocs_per_op": 2},
		Unit:    UnitRuns, Completed: 10, Failed: 0, Valid: true, Verdict: &goPassed},
	// Three benchmarks failed validation: the run is invalid, even for a
	// benchmark that did not fail (one sample: its line's own numbers).
	"gobench/serialization-validate-3-fail.txt": {Format: "gobench", Result: "JsonMarshal", Metric: "time_per_op",
		Metrics: map[string]float64{"time_per_op": 3292, "bytes_per_op": 584, "allocs_per_op": 7},
		Unit:    UnitRuns, Completed: 1, Failed: 0, Valid: false, Verdict: &goFailed,
		Problem: "the tool says the run is not valid: line 6: --- FAIL: BenchmarkBsonUnmarshal; line 11: --- FAIL: BenchmarkVitessBsonUnmarshal; line 22: --- FAIL: BenchmarkUgorjiCodecBincUnmarshal"},
	// A benchmark panicked: no result line at all; the failure, not the
	// missing result, is the root cause.
	"gobench/serialization-panic-exit-status-2.txt": {Format: "gobench", Metric: "time_per_op", Metrics: map[string]float64{},
		Unit: UnitRuns, Completed: 0, Failed: 1, Valid: false, Verdict: &goFailed,
		Problem: "the tool says the run is not valid: line 1: panic: protobuf tag not enough fields in ProtoBufA.state:; line 22: exit status 2; line 23: FAIL\tgithub.com/alecthomas/go_serialization_benchmarks\t61.159s"},
}

// Each line of a failed `go test` makes the run invalid on its own: a
// minimal edit of the clean crc-old run's last two lines (PASS, ok) shows
// each, naming its line.
func TestGoBenchFailureLines(t *testing.T) {
	const rel = "gobench/benchstat-crc-old.txt"
	for _, c := range []struct{ old, new, reason string }{
		{"PASS\n", "FAIL\n", "line 366: FAIL"},
		{"ok  \thash/crc32", "FAIL\thash/crc32", "line 367: FAIL\thash/crc32\t68.427s"},
		{"PASS\n", "exit status 1\n", "line 366: exit status 1"},
		{"PASS\n", "panic: runtime error: index out of range\n", "line 366: panic: runtime error: index out of range"},
		{"PASS\n", "--- FAIL: BenchmarkCRC32/poly=Koopman/size=32kB/align=1-8\n", "line 366: --- FAIL: BenchmarkCRC32/poly=Koopman/size=32kB/align=1-8"},
	} {
		data := realRecordEdited(t, rel, c.old, c.new, 1)
		r := Parse(data, rel, Spec{Format: "gobench", Result: crc15, Metric: "time_per_op"})
		if r.Valid || r.Unreadable || r.Verdict == nil || r.Verdict.Valid || !slices.Contains(r.Verdict.Reasons, c.reason) {
			t.Errorf("%q for %q: valid %v unreadable %v verdict %+v, want the reason %q", c.new, c.old, r.Valid, r.Unreadable, r.Verdict, c.reason)
		}
		if r.Completed != 10 || r.Metrics["time_per_op"] != (46.3+46.8)/2 {
			t.Errorf("%q: completed %d, %v: the failure changed what was read", c.new, r.Completed, r.Metrics)
		}
	}
}

// A benchmark's own --- FAIL: line is a failed run of it, counted; a
// benchmark whose samples are gone but whose failure is there failed, and
// is not a name the file lacks.
func TestGoBenchFailedBenchmarkIsCounted(t *testing.T) {
	const rel = "gobench/benchstat-crc-old.txt"
	data := realRecordEdited(t, rel, "PASS\n", "--- FAIL: BenchmarkCRC32/poly=Koopman/size=32kB/align=1-8\n", 1)
	koopman := "CRC32/poly=Koopman/size=32kB/align=1-8"
	if r := Parse(data, rel, Spec{Format: "gobench", Result: koopman, Metric: "time_per_op"}); r.Failed != 1 || r.Completed != 10 || r.Valid {
		t.Errorf("the failed benchmark: completed %d failed %d valid %v", r.Completed, r.Failed, r.Valid)
	}
	if r := Parse(data, rel, Spec{Format: "gobench", Result: crc15, Metric: "time_per_op"}); r.Failed != 0 {
		t.Errorf("another benchmark: failed %d", r.Failed)
	}
	const rel3 = "gobench/serialization-validate-3-fail.txt"
	r := Parse(realRecord(t, rel3), rel3, Spec{Format: "gobench", Result: "BsonUnmarshal", Metric: "time_per_op"})
	if r.Unreadable || r.Completed != 0 || r.Failed != 1 || !strings.HasPrefix(r.Problems[0], "the tool says the run is not valid: line 6: --- FAIL: BenchmarkBsonUnmarshal") {
		t.Errorf("a benchmark that failed without a result: unreadable %v completed %d failed %d, problems %q", r.Unreadable, r.Completed, r.Failed, r.Problems)
	}
}

// A result line benchfmt cannot read is a problem naming its line (a
// minimal edit: one measurement of the crc-old run made no number); a
// file of many benchmarks read without a name, or with go test's own
// spelling of it, is unreadable, naming what it holds.
func TestGoBenchUnreadableLinesAndNames(t *testing.T) {
	const rel = "gobench/benchstat-crc-old.txt"
	data := realRecordEdited(t, rel, "44.6 ns/op\t 336.59", "44.6x ns/op\t 336.59", 1)
	r := Parse(data, rel, Spec{Format: "gobench", Result: crc15, Metric: "time_per_op"})
	if r.Valid || !slices.ContainsFunc(r.Problems, func(p string) bool { return strings.HasPrefix(p, "a benchmark line benchfmt cannot read: "+rel+":6: ") }) {
		t.Errorf("valid %v, problems %q", r.Valid, r.Problems)
	}
	clean := realRecord(t, rel)
	for _, name := range []string{"", "Benchmark" + crc15} {
		r := Parse(clean, rel, Spec{Format: "gobench", Result: name, Metric: "time_per_op"})
		if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], `"`+crc15+`"`) {
			t.Errorf("result %q: unreadable %v, problems %q", name, r.Unreadable, r.Problems)
		}
	}
}

func TestGoBenchMetricNames(t *testing.T) {
	for unit, want := range map[string]string{"ns/op": "time_per_op", "MB/s": "mb_per_second", "B/op": "bytes_per_op",
		"allocs/op": "allocs_per_op", "ns/elem": "ns_per_elem", "P99-ms/req": "p99_ms_per_req", "%": "percent", "hit%/op": "hit_percent_per_op", "€": ""} {
		if got := goBenchMetric(unit); got != want {
			t.Errorf("%q: %q, want %q", unit, got, want)
		}
	}
}
