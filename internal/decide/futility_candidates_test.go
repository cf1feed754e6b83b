package decide

import "testing"

// A candidate stop is asked in place of Futile's own, and only where
// Futile's guards let a look stop: the validation's candidate rows
// (bench/statistics.sh --candidates) measure the candidate, not the
// default again, and never a stop at a look the default keeps open
// whatever its power.
func TestACandidateStopIsAskedInPlaceOfTheDefault(t *testing.T) {
	s, err := NewSequential(MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	hopeless := []float64{0.052, -0.061, -0.043, 0.064, -0.047, 0.008}
	order := ABBA(len(hopeless))
	dec := CrossoverLogs(hopeless, order, s.Rule(r, len(hopeless)))
	if dec.Decided() || !s.Futile(hopeless, order, dec, r) {
		t.Fatalf("the case shows nothing: the default does not stop it (%s)", dec.Why)
	}
	never := s.WithStop(StopCandidate{Name: "never", futile: func(*Sequential, []float64, []bool, Decision, Rule) bool { return false }})
	if never.Futile(hopeless, order, dec, r) {
		t.Error("a candidate that never stops was not asked: the default's stop ended the look")
	}
	for _, c := range StopCandidates {
		if !s.WithStop(c).Futile(hopeless, order, dec, r) {
			t.Errorf("%s: a look hopeless by every reading did not stop", c.Name)
		}
	}
	// Two slow runs (beyond FutilityOutlierZ) keep the look open whatever
	// the candidate says.
	always := s.WithStop(StopCandidate{Name: "always", futile: func(*Sequential, []float64, []bool, Decision, Rule) bool { return true }})
	slow := []float64{0.022, -0.184, -0.161, 0.064, 0.047, 0.038}
	sd := CrossoverLogs(slow, order, s.Rule(r, len(slow)))
	if always.Futile(slow, order, sd, r) {
		t.Error("a candidate was asked at a look with a pair beyond the futility outlier limit")
	}
	if always.Futile(hopeless[:FutilityFrom-1], order[:FutilityFrom-1], dec, r) {
		t.Errorf("a candidate was asked before pair %d", FutilityFrom)
	}
}
