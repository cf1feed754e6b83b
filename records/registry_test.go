package records

import (
	"slices"
	"testing"

	"github.com/abbench/abbench/scenarios"
)

// The formats a scenario may name are the formats there is a parser for:
// a format validation accepts but no parser reads would be censored at
// every run, one no scenario may name is dead.
func TestFormatsAreTheScenarioFormats(t *testing.T) {
	if got, want := Formats(), slices.Sorted(slices.Values(scenarios.ThroughputFormats)); !slices.Equal(got, want) {
		t.Fatalf("parsers for %q, scenarios name %q", got, want)
	}
}

// A format without a parser gives an invalid record saying so, not a
// record judged by the shared rules alone.
func TestUnknownFormatIsInvalid(t *testing.T) {
	r := Parse([]byte(`{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 1}`), "r.json", Spec{Format: "csv", Requested: 4, Metric: "output_throughput"})
	if r.Valid || !slices.Equal(r.Problems, []string{`unknown throughput record format "csv"`}) {
		t.Fatalf("valid %v, problems %q", r.Valid, r.Problems)
	}
}

func TestNotRead(t *testing.T) {
	r := NotRead("vllm", "out/r.json", "open out/r.json: no such file or directory")
	if r.Valid || r.File != "out/r.json" || r.Completed != -1 || !slices.Equal(r.Problems, []string{"no record: open out/r.json: no such file or directory"}) {
		t.Fatalf("%+v", r)
	}
}
