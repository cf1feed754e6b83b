package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// throughput.result reaches the record's parser: a real redis-benchmark
// CSV of 21 tests compares the one the scenario names, under the
// format's own headline; without a name, the record is unreadable and
// that is the run's root cause.
func TestThroughputResultNamesTheTest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", "redis-benchmark-csv", "redis-all-tests-1-client.csv"))
	if err != nil {
		t.Fatal(err)
	}
	r := goodRun()
	r.record = string(data)
	r.yaml = strings.Replace(scenarioYAML, "format: vllm}", "format: redis-benchmark-csv, result: GET}", 1)
	e := r.collect(t)
	if !e.Accepted || e.HeadlineMetric != "requests_per_second" || e.Throughput.Metrics["requests_per_second"] != 21190.93 {
		t.Fatalf("accepted %v, headline %s, metrics %v, reasons %+v", e.Accepted, e.HeadlineMetric, e.Throughput.Metrics, e.Reasons)
	}
	r.yaml = strings.Replace(scenarioYAML, "format: vllm}", "format: redis-benchmark-csv}", 1)
	e = r.collect(t)
	if e.Accepted || len(e.Reasons) == 0 || e.Reasons[0].Code != reason.ThroughputInvalid || !strings.Contains(e.Reasons[0].Detail, "holds 21 results") {
		t.Fatalf("without a result: accepted %v, reasons %+v", e.Accepted, e.Reasons)
	}
}
