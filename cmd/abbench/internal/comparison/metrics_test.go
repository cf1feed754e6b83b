package comparison

import (
	"slices"
	"testing"
)

// --metric "p99_ttft_ms, goodput" names goodput, not " goodput" (no
// record has it); an empty name or one named twice is refused.
func TestMetricListTrimsAndRefusesRepeats(t *testing.T) {
	got, err := metricList([]string{"p99_ttft_ms", " goodput "})
	if err != nil || !slices.Equal(got, []string{"p99_ttft_ms", "goodput"}) {
		t.Fatalf("trimmed: %q, %v", got, err)
	}
	for _, bad := range [][]string{{"goodput", "goodput"}, {"goodput", " goodput"}, {"p99_ttft_ms", ""}} {
		if _, err := metricList(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
