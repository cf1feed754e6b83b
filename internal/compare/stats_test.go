package compare

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/rundir"
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
	if err := NewReport(r).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "async: " + decide.Meaning(Improved, d.Effect, decide.DefaultRule.Alpha); d.Meaning == "" || !strings.Contains(text.String(), want) {
		t.Errorf("the text report does not say what improved means (%q):\n%s", want, text.String())
	}
}

// In a campaign whose second run of each pair is 3% faster, whichever arm
// it is, the change is taken by the crossover, and the period effect is
// reported and warned about.
func TestPeriodEffectIsReportedAndWarned(t *testing.T) {
	var blocks [][2]float64 // baseline, treatment; the baseline runs first in even blocks
	for i, noise := range []float64{1, -2, 0, 1, 2, -1} {
		b, tr := 1000+noise, 1010-noise
		if i%2 == 0 {
			tr *= 1.03
		} else {
			b *= 1.03
		}
		blocks = append(blocks, [2]float64{b, tr})
	}
	r := Compare(campaignRuns(blocks, nil, 0, len(blocks)), Options{})
	d := r.Deltas[0]
	if d.Method != decide.CrossoverT || d.Period == nil || d.Period.Estimate < 2.5 || d.Period.Estimate > 3.5 {
		t.Fatalf("%s, period %+v", d.Method, d.Period)
	}
	if *d.Pct < 0.7 || *d.Pct > 1.3 {
		t.Errorf("the change %+.2f%%, want about +1%%", *d.Pct)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, fmt.Sprintf("period effect: the second run of a pair was %+.2f%%", d.Period.Estimate))
	}) {
		t.Errorf("no period warning: %q", r.Warnings)
	}
}

// A sequential campaign that stops improved at its first look: the report
// says its interval is the repeated one and that the estimate is biased
// away from zero, by how much at the campaign's noise.
func TestSequentialStopSaysItsIntervalAndBias(t *testing.T) {
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 10, Alpha: 0.05, LookAlpha: 0.0111}
	blocks := [][2]float64{{1000, 1050}, {1004, 1049}, {996, 1049}}
	r := Compare(campaignRuns(blocks, seq, 0, 10), Options{})
	d := r.Deltas[0]
	if r.Verdict != Improved || d.StopBias == nil || d.StopBias.AtEffect <= 0 {
		t.Fatalf("%s, bias %+v (%s)", r.Verdict, d.StopBias, d.Why)
	}
	if !strings.Contains(d.Meaning, "its interval is the repeated 98.9% one, which holds the true change with 95% confidence at whichever look the campaign stops") {
		t.Errorf("the meaning does not say which interval: %q", d.Meaning)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "the estimate at a decided stop is biased away from zero: at this campaign's noise (pair sd ")
	}) {
		t.Errorf("no early-stop bias warning: %q", r.Warnings)
	}
}

// Pairs whose ratios rise through the campaign, each like its neighbour:
// both the lag-1 autocorrelation and the trend of the change are warned
// about.
func TestAlikeAndDriftingPairsAreWarned(t *testing.T) {
	var blocks [][2]float64
	for i, wobble := range []float64{0, 4, 5, 1, -1, 2, 7, 8, 6, 10, 11, 9} {
		blocks = append(blocks, [2]float64{1000, 1020 + 2*float64(i) + wobble})
	}
	r := Compare(campaignRuns(blocks, nil, 0, len(blocks)), Options{})
	for _, want := range []string{"neighbouring pairs are alike (lag-1 autocorrelation +", "the change drifted across the campaign: +"} {
		if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q: %q", want, r.Warnings)
		}
	}
	var steady [][2]float64
	for _, wobble := range []float64{3, -2, 1, -4, 2, 0, -1, 3, -3, 1, 2, -2} {
		steady = append(steady, [2]float64{1000, 1020 + wobble})
	}
	r = Compare(campaignRuns(steady, nil, 0, len(steady)), Options{})
	if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "neighbouring") || strings.Contains(w, "drifted") }) {
		t.Errorf("steady, independent-looking pairs warned: %q", r.Warnings)
	}
}
