package records

import (
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/scenarios"
)

// llmClientFormats are the formats of the LLM serving clients' records.
var llmClientFormats = []string{"genai-perf", "guidellm", "inference-perf", "llmperf", "llmperf-responses", "trtllm-bench"}

// A real record of another tool given to one of these formats is
// unreadable, throughput-invalid as its root cause, never a record of
// failed requests.
func TestLLMClientFormatsRefuseOtherTools(t *testing.T) {
	for rel, c := range corpus {
		for _, format := range llmClientFormats {
			if format == c.Format || format == "llmperf" && c.Format == "llmperf-responses" || format == "llmperf-responses" && c.Format == "llmperf" {
				continue
			}
			r := Parse(realRecord(t, rel), rel, Spec{Format: format, Metric: "output_throughput"})
			if !r.Unreadable || r.Valid {
				t.Errorf("%s read as %s: unreadable %v, valid %v, problems %q", rel, format, r.Unreadable, r.Valid, r.Problems)
			}
		}
	}
}

// Each format's default headline is a metric its valid real records hold,
// and its name reads the right way: higher is better for each default.
func TestDefaultMetricsAreInTheirValidRecords(t *testing.T) {
	for format, metric := range defaultMetrics {
		if !slices.Contains(Formats(), format) {
			t.Errorf("a default metric for %q, which is no format", format)
		}
		if !scenarios.MetricHigherIsBetter(metric) {
			t.Errorf("%s: default %s reads as lower is better", format, metric)
		}
		valid := 0
		for rel, c := range corpus {
			if c.Format != format || !c.Valid {
				continue
			}
			valid++
			if r := Parse(realRecord(t, rel), rel, Spec{Format: format, Requested: c.Requests, Result: c.Result, Metric: metric}); !r.Valid {
				t.Errorf("%s read for its default %s: %q", rel, metric, r.Problems)
			}
		}
		if valid == 0 && format != "genai-perf" {
			// genai-perf has no valid real record: its edited valid one
			// (TestGenAIPerfCountsEveryMeasuredRequest) holds its default.
			t.Errorf("%s: no valid real record holds its default %s", format, metric)
		}
	}
}

// The metrics of these formats are named so that the direction rule reads
// them right: a throughput improves upwards, a mean latency or a duration
// downwards.
func TestLLMClientMetricDirections(t *testing.T) {
	for rel, c := range corpus {
		if !slices.Contains(llmClientFormats, c.Format) {
			continue
		}
		for name := range Parse(realRecord(t, rel), rel, Spec{Format: c.Format, Metric: "output_throughput"}).Metrics {
			want := strings.Contains(name, "throughput")
			if scenarios.MetricHigherIsBetter(name) != want {
				t.Errorf("%s: %s reads as higher is better %v", rel, name, !want)
			}
		}
	}
}
