package decide

import (
	"math"
	"slices"
	"testing"
)

// TestLooksTheSignedRankCannotRejectAtAreNotTaken: asked for (--method
// robust), the signed-rank test decides every look, and its smallest p
// (2/2^n: 0.25 at 3 pairs, 0.031 at 6, 0.0156 at 7, 0.0078 at 8) is above
// the default design's levels at 3 to 7 pairs (0.000024 to 0.0050):
// those looks cannot reject whatever the pairs. They are not taken, and
// the look at 8 spends their share of alpha: its level 0.012 (the
// design's own 0.0079 there), which 8 pairs of one sign (p 0.0078)
// reach: improved at 8. Before, the looks at 6 and 7 spent alpha no
// test could use.
func TestLooksTheSignedRankCannotRejectAtAreNotTaken(t *testing.T) {
	s, err := NewSequential(3, 14, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d := []float64{0.021, 0.012, 0.041, 0.009, 0.033, 0.25, 0.024, 0.035}
	r := Rule{Effect: 1, HigherIsBetter: true, Method: Robust}
	looks := s.Looks(d, ABBA(len(d)), r)
	var skipped []int
	for _, l := range looks {
		if l.Skipped {
			skipped = append(skipped, l.N)
			if l.Decided() || l.Futile {
				t.Errorf("a look not taken decided: %+v", l)
			}
		}
	}
	notTaken := []int{3, 4, 5, 6, 7}
	if !slices.Equal(skipped, notTaken) {
		t.Errorf("looks not taken at %v pairs, want %v", skipped, notTaken)
	}
	last := looks[len(looks)-1]
	if last.N != 8 || last.Method != SignedRank || last.Verdict != Improved || last.P == nil || math.Abs(*last.P-2.0/256) > 1e-9 {
		t.Fatalf("the look at 8 pairs: %d pairs, %s, %s, p %v (%s)", last.N, last.Method, last.Verdict, last.P, last.Why)
	}
	if want := s.Skipping(notTaken).LevelAt(8); last.Alpha != want || want <= s.LevelAt(8) {
		t.Errorf("the look at 8 tested at %g; the design without the looks not taken has %g there, the design with them %g", last.Alpha, want, s.LevelAt(8))
	}
	dec, n := s.Decide(d, ABBA(len(d)), r)
	if n != 8 || dec.Verdict != Improved || !dec.Stagewise || dec.P == nil || *dec.P > s.Alpha {
		t.Errorf("the stop: %d pairs, %s, stagewise %v, p %v", n, dec.Verdict, dec.Stagewise, dec.P)
	}
}
