package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// {record: valid} holds only with the tool's own verdict, valid: a record
// without one (its format has none, or the file lacks it), one the tool
// calls invalid, and an unreadable one fail it, throughput-invalid, the
// detail naming why (the tool's own reasons for an invalid run).
func TestRecordVerdictCriterion(t *testing.T) {
	valid := &records.Verdict{Valid: true}
	invalid := &records.Verdict{Valid: false, Reasons: []string{"min duration not satisfied", "early stopping not satisfied"}}
	for _, c := range []struct {
		name   string
		record *Record
		ok     bool
		detail string
	}{
		{"valid", &Record{Format: "mlperf", File: "out/summary.txt", Valid: true, Verdict: valid}, true, "mlperf record: the tool says the run is valid"},
		{"invalid", &Record{Format: "mlperf", File: "out/summary.txt", Verdict: invalid}, false,
			"mlperf record summary.txt: the tool says the run is not valid: min duration not satisfied; early stopping not satisfied"},
		{"no verdict", &Record{Format: "wrk", File: "out/wrk.txt", Valid: true}, false, "wrk record wrk.txt carries no verdict of its tool"},
		{"unreadable", &Record{Format: "mlperf", File: "out/summary.txt", Unreadable: true, Problems: []string{"no Result is line"}}, false,
			"cannot be read, so it shows no verdict of its tool: no Result is line"},
		{"no record", nil, false, "no throughput record"},
	} {
		s := &scenarios.Scenario{Acceptance: []scenarios.Criterion{{Record: "valid"}}}
		col := &collector{s: s, e: &Evidence{Arm: "a", Throughput: c.record}, st: &rundir.Status{}}
		col.criteria()
		got := col.e.Criteria[0]
		if got.Kind != "record" || got.OK != c.ok || !strings.Contains(got.Detail, c.detail) {
			t.Errorf("%s: %+v, want ok %v and %q", c.name, got, c.ok, c.detail)
		}
		if !c.ok && (len(got.Codes) != 1 || got.Codes[0] != reason.ThroughputInvalid) {
			t.Errorf("%s: codes %v, want throughput-invalid", c.name, got.Codes)
		}
	}
}

// {record: valid} over a format whose tool gives no verdict could never
// hold: validate refuses the scenario before any run (the collector's own
// rule, TestRecordVerdictCriterion's "no verdict", stays for a scenario
// read from elsewhere).
func TestRecordVerdictOfAFormatWithout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(path, []byte(scenarioYAML+"  - {record: valid}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := scenarios.Load(path)
	var es scenarios.Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), "{record: valid}: the vllm tool never says a run is valid") {
		t.Fatalf("load: %v, want the criterion refused", err)
	}
}
