package decide

import (
	"math"
	"strings"
	"testing"
)

func ptr(x float64) *float64 { return &x }

// The textbook example: p 0.01, 0.04, 0.03 in a family of three adjust
// to 0.03, 0.06, 0.06 (step-down, kept monotone).
func TestHolmAdjustSteps(t *testing.T) {
	got := HolmAdjust([]*float64{ptr(0.01), ptr(0.04), ptr(0.03)}, 3)
	want := []float64{0.03, 0.06, 0.06}
	for i := range want {
		if math.Abs(*got[i]-want[i]) > 1e-12 {
			t.Errorf("adjusted p %d: %v, want %v", i, *got[i], want[i])
		}
	}
}

// A test never made (a censored cell) counts in the family: the others
// are adjusted as for three tests, and it gets no p.
func TestHolmAdjustCountsUntestedMembers(t *testing.T) {
	got := HolmAdjust([]*float64{ptr(0.02), nil, ptr(0.2)}, 3)
	if got[1] != nil {
		t.Errorf("the untested member got p %v", *got[1])
	}
	if math.Abs(*got[0]-0.06) > 1e-12 || math.Abs(*got[2]-0.4) > 1e-12 {
		t.Errorf("adjusted %v and %v, want 0.06 and 0.4 (a family of three)", *got[0], *got[2])
	}
	if p := HolmAdjust([]*float64{ptr(0.2)}, 0); *p[0] != 0.2 {
		t.Errorf("a family smaller than its tests: %v, want the one test's own p", *p[0])
	}
}

func TestHolmFamilyTakesBackAVerdictTheFamilyDoesNotHold(t *testing.T) {
	r := Rule{Effect: 1, HigherIsBetter: true}
	clear := PairedLogs([]float64{0.05, 0.06, 0.055, 0.052}, r)
	weak := PairedLogs([]float64{0.02, 0.05, 0.01, 0.045}, r)
	if weak.Verdict != Improved || *weak.P > 0.05 || 3**weak.P <= 0.05 {
		t.Fatalf("the weak change alone: %s p=%v; the test needs one improved alone, not after a family of three", weak.Verdict, *weak.P)
	}
	out := HolmFamily([]Decision{clear, weak}, 3, r, "cells")
	if out[0].Verdict != Improved {
		t.Errorf("the clear change: %s (%s)", out[0].Verdict, out[0].Why)
	}
	if out[1].Verdict != Inconclusive || !strings.Contains(out[1].Why, "Holm-adjusted for 3 cells") {
		t.Errorf("the weak change after adjustment: %s (%s), want inconclusive naming the family", out[1].Verdict, out[1].Why)
	}
	if out[1].Estimate != weak.Estimate || out[1].Interval == nil || (*out[1].Interval)[0] != (*weak.Interval)[0] {
		t.Errorf("the estimate and interval changed: %+v", out[1])
	}
}
