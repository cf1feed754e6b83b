package records

import (
	"cmp"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/abbench/abbench/internal/fuzzseed"
)

// recordSeeds are the records the real tools wrote and the hand-made ones.
var recordSeeds = []string{"testdata/records/*", "../../testdata/records/*/*"}

// FuzzRecords parses any bytes in every JSON and console format (the regex
// format has FuzzRecordRegex) against a workload of requested requests:
// each record obeys checkRecord, with and without a validity flag the
// scenario requires; parses of the same bytes agree (a bundle's evidence
// is derived again and must come out equal); a valid console summary's
// count is the one its count line prints.
func FuzzRecords(f *testing.F) {
	for _, data := range fuzzseed.Files(f, recordSeeds...) {
		// Under -short the large real records (18 of 95 seeds, over 32
		// KiB, 1.3 MB in all) are left to the full suite and the fuzzer:
		// every format's parses of them were most of this package's
		// quick-loop time; TestCorpus still reads each in its own format.
		if largeUnderShort(data) {
			continue
		}
		f.Add(data, uint16(256))
	}
	for _, s := range []string{
		`{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": NaN, "duration": Infinity}`,
		`{"completed": 4, "output_throughput": 1, "x": {"a": [1, {"b": 2, "b": 3}]}}`,
		"Successful requests: 4\nFailed requests: 0\nOutput token throughput (tok/s): 1e3\n",
		`{"request_count": {"avg": 4}, "output_token_throughput": {"avg": 5}, "error_summary": [{"count": -3}]}`,
	} {
		f.Add([]byte(s), uint16(4))
	}
	f.Fuzz(func(t *testing.T, data []byte, requested uint16) {
		if len(data) > 256<<10 {
			return
		}
		for _, format := range Formats() {
			if format == "regex" {
				continue
			}
			// A format's own headline, so that its records can be valid.
			metric := cmp.Or(DefaultMetric(format), "output_throughput")
			r := Parse(data, "r", Spec{Format: format, Requested: int(requested), Metric: metric})
			checkRecord(t, r, int(requested), metric)
			// Several parses: a result in map order differs from the first
			// in one of them all but surely. A large real record is parsed
			// twice only: its eight parses of every format made the seed
			// run the slowest test of the package, and map order shows as
			// well in the small records (the fuzzer's own inputs are small).
			for range repeats(data) {
				if again := Parse(data, "r", Spec{Format: format, Requested: int(requested), Metric: metric}); !reflect.DeepEqual(r, again) {
					t.Fatalf("%s: two parses of the same bytes differ:\n%+v\n%+v", format, r, again)
				}
			}
			if format == "console" && r.Valid {
				checkConsoleCount(t, data, r)
			}
			flagged := Parse(data, "r", Spec{Format: format, Requested: int(requested), Metric: metric, Flag: "fuzz_ok"})
			checkRecord(t, flagged, int(requested), metric)
			if flagged.Valid && (flagged.ValidityFlag == nil || !*flagged.ValidityFlag) {
				t.Fatalf("%s: valid without the validity flag the scenario requires", format)
			}
		}
	})
}

// repeats is how many more times FuzzRecords parses data to hold the
// parses equal. Under go test -short a seed is parsed again once: the
// seed corpus's eight parses in every format were most of the quick
// loop's time in this package, and the full suite and the fuzzer keep
// the eight that catch map order.
func repeats(data []byte) int {
	if len(data) > largeSeed || testing.Short() {
		return 1
	}
	return 8
}

// largeSeed is the size above which a record is large for FuzzRecords.
const largeSeed = 32 << 10

// largeUnderShort says whether a test that parses every real record in
// many ways leaves this one to the full suite: under go test -short the
// 18 records over largeSeed (1.3 MB of the corpus's 1.7) are skipped by
// the tests that parse each in every format or several times over, whose
// parses of them were most of this package's quick-loop CPU; TestCorpus
// still reads each in its own format.
func largeUnderShort(data []byte) bool {
	return testing.Short() && len(data) > largeSeed
}

// FuzzRecordRegex parses any bytes with any pattern in the regex format.
func FuzzRecordRegex(f *testing.F) {
	const pattern = `completed=(?P<completed>\d+) failed=(?P<failed>\d+) out_tok_s=(?P<output_throughput>[0-9.]+)`
	for _, data := range fuzzseed.Files(f, "testdata/records/regex.log") {
		f.Add(data, pattern, uint16(256))
	}
	f.Add([]byte("1000 requests completed in 2.5 seconds\nthroughput summary: 400.0 requests per second\n"),
		`(?s)(?P<completed>\d+) requests completed in (?P<duration>[0-9.]+) seconds.*throughput summary: (?P<request_throughput>[0-9.]+) requests per second`, uint16(1000))
	f.Add([]byte("n=3 x=-1"), `n=(?P<completed>\d+) x=(?P<output_throughput>-?\d+)`, uint16(0))
	f.Add([]byte("n=3"), `(?P<completed>`, uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, pattern string, requested uint16) {
		// Matching is linear in data times pattern: keep both small.
		if len(data) > 16<<10 || len(pattern) > 256 {
			return
		}
		metric := "output_throughput"
		if re, err := regexp.Compile(pattern); err == nil && slices.Contains(re.SubexpNames(), "request_throughput") {
			metric = "request_throughput"
		}
		r := Parse(data, "r", Spec{Format: "regex", Requested: int(requested), Pattern: pattern, Metric: metric})
		checkRecord(t, r, int(requested), metric)
		if _, err := regexp.Compile(pattern); err != nil && r.Valid {
			t.Fatalf("a pattern that does not compile gave a valid record: %v", err)
		}
	})
}

// checkRecord holds a parsed record to docs/evidence.md's rule: valid
// exactly when it has no problem, and then it holds its metric, every
// metric is finite, positive and plausible, none of its work failed and,
// for a record of requests, every request of the workload completed.
func checkRecord(t *testing.T, r *Record, requested int, metric string) {
	t.Helper()
	if r.Valid != (len(r.Problems) == 0) {
		t.Fatalf("%s: valid %v with problems %q", r.Format, r.Valid, r.Problems)
	}
	for _, p := range r.Problems {
		if p == "" {
			t.Fatalf("%s: an empty problem in %q", r.Format, r.Problems)
		}
	}
	if !r.Valid {
		return
	}
	if _, ok := r.Metrics[metric]; !ok {
		t.Fatalf("%s: valid without %s: %v", r.Format, metric, r.Metrics)
	}
	for name, v := range r.Metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v >= MaxPlausible {
			t.Fatalf("%s: valid with %s = %v", r.Format, name, v)
		}
	}
	// A tool's valid verdict stands for a count it does not print, unless
	// the workload's requests are to be counted.
	vouched := r.Completed < 0 && r.Verdict != nil && r.Verdict.Valid && (requested == 0 || r.WorkUnit() != UnitRequests)
	if (r.Completed < 0 && !vouched) || r.Failed > 0 || (requested > 0 && r.WorkUnit() == UnitRequests && r.Completed != requested) || (r.Requested >= 0 && r.Completed > r.Requested) {
		t.Fatalf("%s: valid with %d completed, %d failed, %d requested (workload %d)", r.Format, r.Completed, r.Failed, r.Requested, requested)
	}
	if requested > 0 && r.WorkUnit() == UnitRequests && r.Requested >= 0 && r.Requested != requested {
		t.Fatalf("%s: valid with its own request count %d, the workload's %d", r.Format, r.Requested, requested)
	}
}

var consoleCompleted = regexp.MustCompile(`(?im)^\s*(?:successful requests|number of requests):\s*([0-9.eE+-]+)`)

// checkConsoleCount requires the completed count of a valid console
// summary to be the number its last count line prints, whole.
func checkConsoleCount(t *testing.T, data []byte, r *Record) {
	t.Helper()
	all := consoleCompleted.FindAllSubmatch(data, -1)
	if len(all) == 0 {
		t.Fatalf("valid console summary without a count line")
	}
	if n, err := strconv.Atoi(string(all[len(all)-1][1])); err != nil || n != r.Completed {
		t.Fatalf("valid console summary: its count line says %q, the record %d completed", all[len(all)-1][1], r.Completed)
	}
}
