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
func (s *Sequential) Family(k int) *Sequential {
	if k < 2 || s == nil {
		return s
	}
	out := *s
	out.Treatments = k
	out.FamilyAlpha = s.Alpha
	out.Alpha = s.Alpha / float64(k)
	if s.Boundary == OBFSpending {
		out.LookAlphas = OBFLevels(s.MinPairs, s.MaxPairs, out.Alpha)
	} else {
		out.LookAlpha = LookAlpha(s.MinPairs, s.MaxPairs, out.Alpha)
	}
	return &out
}

// familyWords says a family's split in a report's words ("" for one
// treatment).
func (s *Sequential) familyWords() string {
	if s.Treatments < 2 {
		return ""
	}
	return fmt.Sprintf("; each of %d treatments held to %s, its share of %s, so that together they claim a false change at most %.3g%% of the time",
		s.Treatments, numfmt.Significant(s.Alpha, levelDigits), numfmt.Significant(s.FamilyAlpha, levelDigits), 100*s.FamilyAlpha)
}
