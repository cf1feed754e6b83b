package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/decide"
)

// A +2% change in pairs of about 1% noise, from a scenario whose
// noise_threshold is 3%: the default smallest effect is not the noise
// threshold, so the change is claimed, and the report says what the
// verdict means.
func TestNoiseThresholdIsNotTheSmallestEffect(t *testing.T) {
	blocks := [][2]float64{{1000, 1021}, {1004, 1023}, {996, 1018}, {1001, 1020}}
	r := Compare(campaignRuns(blocks, nil, 0, len(blocks)), Options{})
	d := r.Deltas[0]
	if d.Effect != decide.DefaultRule.Effect || d.EffectOf != "default" {
		t.Fatalf("+2%% at a noise threshold of 3%%: %s at smallest effect %.2f%% (%s): %s", r.Verdict, d.Effect, d.EffectOf, d.Why)
	}
	if r.Verdict != Improved {
		t.Fatalf("+2%%: %s (%s)", r.Verdict, d.Why)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "async: " + decide.Meaning(Improved, d.Effect, decide.DefaultRule.Alpha); d.Meaning == "" || !strings.Contains(text.String(), want) {
		t.Errorf("the text report does not say what improved means (%q):\n%s", want, text.String())
	}
}
