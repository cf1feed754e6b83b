package records

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusFile reads a real file of testdata/records.
func corpusFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// edited is a real file with minimal edits, each old -> new; an edit
// that does not apply fails the test, so the case cannot silently test
// the unedited file.
func edited(t *testing.T, rel string, pairs ...string) []byte {
	t.Helper()
	data := corpusFile(t, rel)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !bytes.Contains(data, []byte(pairs[i])) {
			t.Fatalf("%s lacks %q", rel, pairs[i])
		}
		data = bytes.ReplaceAll(data, []byte(pairs[i]), []byte(pairs[i+1]))
	}
	return data
}

type editedCase struct {
	name, file string
	edits      []string
	metric     string
	want       string // the first problem
}

// checkEdited parses each edited real file and requires it invalid, its
// first problem the one named.
func checkEdited(t *testing.T, format string, cases []editedCase) {
	t.Helper()
	for _, c := range cases {
		r := Parse(edited(t, c.file, c.edits...), c.file, Spec{Format: format, Metric: c.metric})
		if r.Valid || len(r.Problems) == 0 || r.Problems[0] != c.want {
			t.Errorf("%s: valid %v, problems %q, want first %q", c.name, r.Valid, r.Problems, c.want)
		}
	}
}

const (
	offlineSummary = "mlperf/offline-valid-10-samples-summary.txt"
	offlineDetail  = "mlperf/offline-valid-10-samples-detail.txt"
)

// No real INVALID Offline run was published: LoadGen's other reasons
// are tested on minimal edits of the real VALID one, each named.
func TestMLPerfInvalidReasons(t *testing.T) {
	const sps = "samples_per_second"
	minDuration := "Result is : INVALID\n  Min duration satisfied : NO\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\n" +
		"Recommendations:\n * Increase expected QPS so the loadgen pre-generates a larger (coalesced) query.\n"
	minQueries := "Result is : INVALID\n  Min duration satisfied : Yes\n  Min queries satisfied : NO\n  Early stopping satisfied: Yes\n" +
		"Recommendations:\n * The test exited early, before enough queries were issued.\n   See the detailed log for why this may have occurred.\n"
	valid := "Result is : VALID\n  Min duration satisfied : Yes\n  Min queries satisfied : Yes\n  Early stopping satisfied: Yes\n"
	checkEdited(t, "mlperf", []editedCase{
		{"summary: min duration not met", offlineSummary, []string{valid, minDuration}, sps,
			"the tool says the run is not valid: min duration not satisfied; Increase expected QPS so the loadgen pre-generates a larger (coalesced) query"},
		{"summary: min queries not met", offlineSummary, []string{valid, minQueries}, sps,
			"the tool says the run is not valid: min queries not satisfied; The test exited early, before enough queries were issued. See the detailed log for why this may have occurred"},
		{"summary: VALID, but a check says NO", offlineSummary, []string{"Min queries satisfied : Yes", "Min queries satisfied : NO"}, sps,
			"the tool says the run is not valid: min queries not satisfied"},
		{"summary: 2 errors", offlineSummary, []string{"No errors encountered during test.", "2 ERRORS encountered. See detailed log."}, sps,
			"the tool says the run is not valid: 2 ERRORS encountered"},
		{"summary: neither VALID nor INVALID", offlineSummary, []string{"Result is : VALID", "Result is : MAYBE"}, sps,
			`the tool says the run is not valid: "MAYBE" is neither VALID nor INVALID`},
		{"summary: cut before its error count", offlineSummary, []string{"No errors encountered during test.", ""}, sps,
			`has no line counting LoadGen's errors ("No errors encountered during test."), which ends every summary: is it cut short?`},
		{"summary: no Result line", offlineSummary, []string{valid, ""}, sps,
			`has no "Result is :" line: LoadGen prints one in the summary of every performance run (is it an accuracy run's, or cut short?)`},
		{"summary: a metric twice, two values", offlineSummary, []string{"Samples per second: 0.165037", "Samples per second: 0.165037\nSamples per second: 0.2"}, sps,
			"samples_per_second is given twice, as 0.165037 and 0.2"},
		{"detail: min duration not met", offlineDetail, []string{
			`"key": "result_validity", "value": "VALID"`, `"key": "result_validity", "value": "INVALID"`,
			`"key": "result_min_duration_met", "value": true`, `"key": "result_min_duration_met", "value": false`}, sps,
			"the tool says the run is not valid: min duration not satisfied"},
		{"detail: an error logged", offlineDetail, []string{
			`"key": "loadgen_git_status_message", "value": "", "time_ms": 0.005228, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false`,
			`"key": "error_uncommitted_loadgen_changes", "value": "Loadgen built with uncommitted changes!", "time_ms": 0.005228, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": true`}, sps,
			"the tool says the run is not valid: 1 ERROR encountered: Loadgen built with uncommitted changes!"},
		{"detail: two runs' logs in one", offlineDetail, []string{`:::MLLOG {"key": "result_validity"`, ":::MLLOG {\"key\": \"result_validity\", \"value\": \"VALID\"}\n:::MLLOG {\"key\": \"result_validity\""}, sps,
			"holds result_validity 2 times: LoadGen logs it once, at the end of a performance run (is it an accuracy run's, cut short, or several runs' logs in one?)"},
		{"detail: a damaged entry", offlineDetail, []string{`:::MLLOG {"key": "result_samples_per_second"`, `:::MLLOG {"key" "result_samples_per_second"`}, sps,
			"line 76: the :::MLLOG entry does not parse: invalid character '\"' after object key"},
	})
}

// A summary's numbers are LoadGen's: its test parameters (ttft_latency,
// min_duration) are settings, never metrics.
func TestMLPerfSummaryReadsNoSettings(t *testing.T) {
	r := Parse(corpusFile(t, "mlperf/llm-server-invalid-ttft-early-stopping-summary.txt"), "s", Spec{Format: "mlperf", Metric: "tokens_per_second"})
	for name := range r.Metrics {
		if strings.Contains(name, "ttft_latency") || strings.Contains(name, "duration") || strings.Contains(name, "qps") {
			t.Errorf("a setting read as a metric: %s", name)
		}
	}
	if len(r.Metrics) != 30 {
		t.Errorf("%d metrics, want the 30 the summary prints: %v", len(r.Metrics), r.Metrics)
	}
}

// A tool's verdict stands for a count it does not print, but never for
// the workload's request count.
func TestVerdictStandsForAMissingCount(t *testing.T) {
	for _, c := range []struct {
		unit      string
		requested int
		valid     bool
	}{{UnitQueries, 0, true}, {UnitRequests, 0, true}, {UnitRequests, 4, false}} {
		r := newRecord("x", "f")
		r.Unit, r.Metrics["m"] = c.unit, 1
		r.verdict(true)
		r.finish(Spec{Requested: c.requested, Metric: "m"})
		if r.Valid != c.valid {
			t.Errorf("unit %s against %d requests: valid %v, problems %q", c.unit, c.requested, r.Valid, r.Problems)
		}
		bare := newRecord("x", "f")
		bare.Metrics["m"] = 1
		if bare.finish(Spec{Metric: "m"}); bare.Valid {
			t.Errorf("no count and no verdict: valid")
		}
	}
}

// Two LoadGen summaries in one file (logs of two runs concatenated) were
// read line by line, the later run's lines winning: an INVALID run
// followed by a VALID one was valid. The file is unreadable. Failed on
// the old code.
func TestMLPerfSummariesOfSeveralRuns(t *testing.T) {
	valid := corpusFile(t, "mlperf/offline-valid-10-samples-summary.txt")
	invalid := edited(t, "mlperf/offline-valid-10-samples-summary.txt", "Result is : VALID", "Result is : INVALID")
	for name, data := range map[string][]byte{"invalid, then valid": slices.Concat(invalid, valid), "valid twice": slices.Concat(valid, valid)} {
		r := Parse(data, "mlperf_log_summary.txt", Spec{Format: "mlperf", Metric: "samples_per_second"})
		if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], `holds 2 "MLPerf Results Summary" headers`) {
			t.Errorf("%s: valid %v unreadable %v, problems %q", name, r.Valid, r.Unreadable, r.Problems)
		}
	}
}
