package decide

import "math"

// A StopCandidate is a futility stop measured against Futile's own on
// the same simulated campaigns (bench/statistics.sh --candidates), so
// that every stop docs/statistics.md says was tried is one command away.
// Each is asked only where Futile's guards let a look stop (from
// FutilityFrom pairs, before the last, at a paired-t look with no pair
// beyond FutilityOutlierZ).
type StopCandidate struct {
	// Name says the stop in the validation table's design column.
	Name   string
	futile func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool
}

// StopCandidates are the milder stops measured against the default's:
// each gives up on fewer campaigns, which recovers power the stop costs
// under heavy tails, and raises the A/A rate where the stop's cut was
// keeping it within alpha.
var StopCandidates = []StopCandidate{
	{Name: "futility below 0.1", futile: func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool {
		return s.hopeless(dec.est, pairSD(d, baseFirst), len(d), 0.1, r)
	}},
	{Name: "futility below 0.05", futile: func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool {
		return s.hopeless(dec.est, pairSD(d, baseFirst), len(d), 0.05, r)
	}},
	// Hopeless also at the Hodges-Lehmann estimate and the scaled median
	// absolute deviation: a look whose mean fell short because of one
	// far pair is read as the robust statistics read it.
	{Name: "futility also at the Hodges-Lehmann estimate", futile: func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool {
		_, scale := robustScale(d)
		return s.hopeless(dec.est, pairSD(d, baseFirst), len(d), s.Futility, r) &&
			s.hopeless(hodgesLehmann(d), scale, len(d), s.Futility, r)
	}},
	// Hopeless also at the trimmed mean and its standard error (the
	// trimmed t's, winsorized, never below the ordinary pairs').
	{Name: "futility also at the trimmed mean", futile: func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool {
		m, se, _ := trimmed(d)
		return s.hopeless(dec.est, pairSD(d, baseFirst), len(d), s.Futility, r) &&
			s.hopeless(m, se*math.Sqrt(float64(len(d))), len(d), s.Futility, r)
	}},
}

// WithStop is s with c's futility stop in place of Futile's own.
func (s Sequential) WithStop(c StopCandidate) *Sequential {
	s.candidate = c.futile
	return &s
}
