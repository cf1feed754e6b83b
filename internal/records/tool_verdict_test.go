package records

import (
	"slices"
	"testing"
)

// A record whose tool says its run is not valid is invalid whatever else
// it holds, the tool's reasons its problem: {throughput: valid} censors
// it with or without {record: valid}.
func TestToolVerdictInvalidatesTheRecord(t *testing.T) {
	spec := Spec{Format: "x", Metric: "samples_per_second"}
	for _, c := range []struct {
		valid   bool
		reasons []string
		want    []string
	}{
		{true, nil, []string{}},
		{false, []string{"min duration not satisfied"}, []string{"the tool says the run is not valid: min duration not satisfied"}},
		{false, nil, []string{"the tool says the run is not valid: no reason given"}},
	} {
		r := newRecord("x", "f")
		r.Unit, r.Requested, r.Completed, r.Failed = UnitQueries, 10, 10, 0
		r.Metrics["samples_per_second"] = 35342.5
		r.verdict(c.valid, c.reasons...)
		r.finish(spec)
		if r.Valid != c.valid || r.Verdict == nil || r.Verdict.Valid != c.valid || !slices.Equal(r.Problems, c.want) {
			t.Errorf("verdict %v %q: valid %v, verdict %+v, problems %q; want %q", c.valid, c.reasons, r.Valid, r.Verdict, r.Problems, c.want)
		}
	}
}
