package scenarios

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/records"
)

// A scenario may name exactly the formats records reads: every one of
// them validates (the list is records.Formats, spelled once).
func TestEveryRecordFormatValidates(t *testing.T) {
	for _, format := range records.Formats() {
		to := "format: " + format + "}"
		if format == "regex" {
			to = "format: regex, pattern: 'n=(?P<completed>\\d+) x=(?P<output_throughput>\\d+)'}"
		}
		if _, err := load(t, strings.Replace(base, "format: vllm}", to, 1)); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

// A throughput record without a metric compares its format's own
// headline (wrk's requests per second), else DefaultMetric; a metric the
// scenario names is kept.
func TestHeadlineIsTheFormatsOwn(t *testing.T) {
	own := records.DefaultMetric("wrk")
	if own == "" || own == DefaultMetric {
		t.Fatalf("wrk's own headline is %q: pick a format whose headline is not %s", own, DefaultMetric)
	}
	for _, c := range []struct{ throughput, want string }{
		{"format: wrk}", own},
		{"format: vllm}", DefaultMetric},
		{"format: wrk, metric: p99_latency_ms}", "p99_latency_ms"},
	} {
		s, err := load(t, strings.Replace(base, "format: vllm}", c.throughput, 1))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Evidence.Throughput.Metric; got != c.want {
			t.Errorf("%s: metric %q, want %q", c.throughput, got, c.want)
		}
	}
}

// throughput.result loads into the scenario, as evidence reads it.
func TestResultLoads(t *testing.T) {
	s, err := load(t, strings.Replace(base, "format: vllm}", "format: redis-benchmark-csv, result: GET}", 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.Evidence.Throughput.Result != "GET" {
		t.Errorf("result %q", s.Evidence.Throughput.Result)
	}
}

// {record: valid} is a criterion of its own kind, as evidence reads it.
func TestRecordCriterionLoads(t *testing.T) {
	s, err := load(t, strings.Replace(base, "format: vllm}", "format: mlperf}", 1)+"  - {record: valid}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Acceptance[1]; got.Kind() != "record" || got.Record != "valid" {
		t.Errorf("second criterion %+v, kind %q", got, got.Kind())
	}
}
