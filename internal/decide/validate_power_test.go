package decide

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// losing is design d, except that it says inconclusive where d said
// improved in campaigns whose first pair's log ratio is below cut: a
// design that loses the change in a share of the campaigns d finds it in.
func losing(d Design, cut float64) Design {
	return Design{Name: d.Name + ", losing some", Decide: func(c Campaign, r Rule) Outcome {
		out := d.Decide(c, r)
		if out.Verdict == Improved && c.D[0] < cut {
			out.Verdict = Inconclusive
		}
		return out
	}}
}

// PowerBelow holds a design to a reference on the same campaigns at a
// true change of 2% or more: a design that finds fewer is listed with
// both figures, one that loses a few campaigns in Monte Carlo error is
// not, and rows of other campaigns are refused rather than compared.
func TestPowerBelowPairsTheSameCampaigns(t *testing.T) {
	normal := Models[1] // normal, CV 1%
	ten := Fixed(10)
	rule := Rule{Alpha: DefaultRule.Alpha, Effect: DefaultRule.Effect, HigherIsBetter: true}
	rows := Validate(normal, []Design{Fixed(3), ten, ten, losing(ten, -0.016), losing(ten, 0.0)}, rule, 400, 11)
	few, ref, same, fewLost, manyLost := rows[0], rows[1], rows[2], rows[3], rows[4]
	below := func(row Row) []string {
		t.Helper()
		m, err := row.PowerBelow(ref)
		if err != nil {
			t.Fatalf("%s: %v", row.Design, err)
		}
		return m
	}
	m := below(few)
	t.Logf("3 pairs against 10: %v", m)
	if !slices.ContainsFunc(m, func(s string) bool {
		return strings.HasPrefix(s, "power +2% ") && strings.Contains(s, "(10 pairs; found by it alone in ")
	}) {
		t.Errorf("3 pairs, +2%% found in %.0f%% against 10 pairs' %.0f%%, not listed: %v", 100*few.Power[1], 100*ref.Power[1], m)
	}
	if slices.ContainsFunc(m, func(s string) bool { return strings.HasPrefix(s, "power +1% ") }) {
		t.Errorf("+1%% is below the goal's 2%% yet listed: %v", m)
	}
	if m := below(same); len(m) > 0 {
		t.Errorf("a design held to itself is listed: %v", m)
	}
	t.Logf("+2%%: 10 pairs %.2f%%, losing few %.2f%%, losing many %.2f%%", 100*ref.Power[1], 100*fewLost.Power[1], 100*manyLost.Power[1])
	if fewLost.Power[1] == ref.Power[1] {
		t.Fatalf("the design losing a few campaigns lost none")
	}
	if m := below(fewLost); len(m) > 0 {
		t.Errorf("a design losing %.1f%% of campaigns at +2%% (Monte Carlo error) is listed: %v", 100*(ref.Power[1]-fewLost.Power[1]), m)
	}
	if m := below(manyLost); len(m) == 0 {
		t.Errorf("a design losing a sixteenth of its campaigns (+2%%: %.1f%% against %.1f%%) is not listed", 100*manyLost.Power[1], 100*ref.Power[1])
	}
	other := Validate(normal, []Design{ten}, rule, 400, 11)[0]
	if _, err := other.PowerBelow(ref); !errors.Is(err, ErrOtherCampaigns) {
		t.Errorf("rows of two Validate calls compared: err %v", err)
	}
}
