package decide

import (
	"fmt"

	"github.com/abbench/abbench/internal/numfmt"
)

// Family is the design each of k treatments compared with one baseline
// is held to, so that the k together say a false change at most Alpha of
// the time: every treatment's looks at the boundary of its share of
// Alpha, Alpha/k (Bonferroni's split, which holds whatever the
// dependence between the treatments, and they are dependent: each is
// compared with the same baseline runs). Holm's step-down cannot be
// applied to the looks' nominal p as a fixed design's is: a treatment
// stops at its own look, and its p is against its look's level, not
// alpha. Without the split, two treatments in A/A said a false change in
// 8.8% of simulated campaigns at 5% noise. k below 2 is s itself.
func (s *Sequential) Family(k int) *Sequential { return s.FamilyOf(k, 1, 1) }

// FamilyOf is Family for k treatments each compared on m metrics in each
// of c cells of a sweep: the k·m·c tests of the campaign are one family,
// each held to Alpha/(k·m·c) at every look, so that the stop (which looks
// at the headline metric, of a sweep cell by cell) and every verdict are
// decided by one boundary. Holm's adjustment of the looks' nominal p made
// a metric the stop called improved, or a sweep's cell, inconclusive
// beside a 95% interval that excluded no change.
func (s *Sequential) FamilyOf(k, m, c int) *Sequential {
	k, m, c = max(k, 1), max(m, 1), max(c, 1)
	if k*m*c < 2 || s == nil {
		return s
	}
	out := *s
	out.Treatments, out.Metrics, out.Cells = k, m, c
	out.FamilyAlpha = s.Alpha
	out.Alpha = s.Alpha / float64(k*m*c)
	if s.Boundary == OBFSpending {
		out.LookAlphas = OBFLevels(s.MinPairs, s.MaxPairs, out.Alpha)
	} else {
		out.LookAlpha = LookAlpha(s.MinPairs, s.MaxPairs, out.Alpha)
	}
	return &out
}

// familyWords says a family's split in a report's words ("" for one
// test).
func (s *Sequential) familyWords() string {
	tests := max(s.Treatments, 1) * max(s.Metrics, 1) * max(s.Cells, 1)
	if tests < 2 {
		return ""
	}
	what := fmt.Sprintf("%d treatments", s.Treatments)
	switch {
	case s.Cells > 1:
		what = fmt.Sprintf("%d tests (%d treatment(s) on %d metric(s) in %d cells)", tests, max(s.Treatments, 1), max(s.Metrics, 1), s.Cells)
	case s.Metrics > 1:
		what = fmt.Sprintf("%d tests (%d treatment(s) on %d metrics)", tests, max(s.Treatments, 1), s.Metrics)
	}
	return fmt.Sprintf("; each of %s held to %s, its share of %s, so that together they claim a false change at most %.3g%% of the time",
		what, numfmt.Significant(s.Alpha, levelDigits), numfmt.Significant(s.FamilyAlpha, levelDigits), 100*s.FamilyAlpha)
}
