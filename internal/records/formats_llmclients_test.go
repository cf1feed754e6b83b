package records

import (
	"slices"
	"strings"
	"testing"
)

// llmClientFormats are the formats of the LLM serving clients' records.
var llmClientFormats = []string{"genai-perf", "guidellm", "inference-perf", "llmperf", "llmperf-responses", "trtllm-bench"}

// A real record of another tool (of at most largeSeed under go test
// -short) given to one of these formats is unreadable, throughput-invalid as its root cause, never a record of
// failed requests.
func TestLLMClientFormatsRefuseOtherTools(t *testing.T) {
	for rel, c := range corpus {
		data := realRecord(t, rel)
		if largeUnderShort(data) {
			continue
		}
		for _, format := range llmClientFormats {
			if format == c.Format || format == "llmperf" && c.Format == "llmperf-responses" || format == "llmperf-responses" && c.Format == "llmperf" {
				continue
			}
			r := Parse(data, rel, Spec{Format: format, Metric: "output_throughput"})
			if !r.Unreadable || r.Valid {
				t.Errorf("%s read as %s: unreadable %v, valid %v, problems %q", rel, format, r.Unreadable, r.Valid, r.Problems)
			}
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
			if HigherIsBetter(name) != want {
				t.Errorf("%s: %s reads as higher is better %v", rel, name, !want)
			}
		}
	}
}
