package evidence

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// TestOutputTokensCriterion: {output_tokens: equal} holds a run to a
// record that says how many tokens it generated, and carries the
// tolerance compare holds the arms to; a record that does not say is
// throughput-invalid, as the arms cannot be held to equal work.
func TestOutputTokensCriterion(t *testing.T) {
	r := goodRun()
	r.yaml = strings.Replace(scenarioYAML, "  - {clean_shutdown: true}\n", "  - {clean_shutdown: true}\n  - {output_tokens: equal, within: 2%}\n", 1)
	r.record = `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "total_output_tokens": 128, "valid": true}`
	e := r.collect(t)
	if !e.Accepted || e.OutputTokensWithin == nil || *e.OutputTokensWithin != 2 || e.Throughput.OutputTokens == nil || *e.Throughput.OutputTokens != 128 {
		t.Fatalf("accepted %v, within %v, output tokens %v, reasons %v", e.Accepted, e.OutputTokensWithin, e.Throughput.OutputTokens, e.Reasons)
	}
	r.record = `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "valid": true}`
	e = r.collect(t)
	if e.Accepted || len(e.Reasons) != 1 || e.Reasons[0].Code != reason.ThroughputInvalid || !strings.Contains(e.Reasons[0].Detail, "total_output_tokens") {
		t.Fatalf("a record without its output tokens: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
}
