package decide

import (
	"fmt"

	"github.com/abbench/abbench/internal/numfmt"
)

// Sequential is a design that looks at the data after every pair from
// MinPairs to MaxPairs and stops at the first decided verdict, or, with a
// Futility, at the first look from which the remaining pairs are unlikely
// to decide. Looking after every pair at Alpha itself would find a
// difference in an A/A campaign far more often than Alpha says, so each
// look tests at a level of its own, chosen by simulation so that the
// chance of any false verdict over all the looks stays Alpha.
//
// Boundary says how: OBFSpending (NewSequential's) spends little early
// and tests the look at n pairs at LookAlphas[n-MinPairs]; "" is the
// constant level LookAlpha at every look (Pocock's idea), the design of
// plans made before the spending boundary, which keep it.
type Sequential struct {
	MinPairs  int     `json:"min_pairs"`
	MaxPairs  int     `json:"max_pairs"`
	Alpha     float64 `json:"alpha"`
	LookAlpha float64 `json:"look_alpha"`
	Boundary  string  `json:"boundary,omitempty"`
	// LookAlphas are a spending boundary's levels, look by look.
	LookAlphas []float64 `json:"look_alphas,omitempty"`
	// Futility is the conditional power below which an undecided look
	// stops the campaign inconclusive (0: none; see Futile).
	Futility float64 `json:"futility,omitempty"`
	// Treatments is the family a design of Family shares its alpha
	// among, FamilyAlpha the family's alpha (0 for one treatment).
	Treatments  int     `json:"treatments,omitempty"`
	FamilyAlpha float64 `json:"family_alpha,omitempty"`
}

// DefaultMaxPairs is the most pairs abbench run's sequential design
// takes unless told (--max-pairs), DefaultFutility the conditional power
// below which it stops undecided: together with OBFSpending, the design
// that finds a true +5% at 5% run-to-run noise more often than benchstat
// on 10+10 runs, with fewer runs on average (docs/statistics.md).
const (
	DefaultMaxPairs = 14
	DefaultFutility = 0.2
)

// MinLookPairs is the first pair count a sequential design may look at:
// with two pairs the t-test has one degree of freedom and an interval
// several times wider than the change. MaxLookPairs is the last.
const (
	MinLookPairs = 3
	MaxLookPairs = 200
)

// A DesignError is a sequential design's bound out of its range. Field
// names the bound as the design's JSON does (min_pairs, max_pairs), so a
// caller that took it from elsewhere (a command's flag) can say where.
type DesignError struct {
	Field string
	Value int
	Why   string // what the bound must be
}

func (e *DesignError) Error() string { return fmt.Sprintf("%s %d: %s", e.Field, e.Value, e.Why) }

// NewSequential fixes a design of the OBFSpending boundary with the
// DefaultFutility stop, computing its per-look levels; a bound out of
// range is a *DesignError.
func NewSequential(minPairs, maxPairs int, alpha float64) (*Sequential, error) {
	if alpha <= 0 || alpha >= 1 {
		alpha = DefaultRule.Alpha
	}
	switch {
	case minPairs < MinLookPairs:
		return nil, &DesignError{"min_pairs", minPairs, fmt.Sprintf("a sequential design looks from %d pairs on", MinLookPairs)}
	case maxPairs < minPairs:
		return nil, &DesignError{"max_pairs", maxPairs, fmt.Sprintf("below min_pairs %d", minPairs)}
	case maxPairs > MaxLookPairs:
		return nil, &DesignError{"max_pairs", maxPairs, fmt.Sprintf("a sequential design runs at most %d pairs", MaxLookPairs)}
	}
	return &Sequential{MinPairs: minPairs, MaxPairs: maxPairs, Alpha: alpha, Boundary: OBFSpending,
		LookAlphas: OBFLevels(minPairs, maxPairs, alpha), Futility: DefaultFutility}, nil
}

// Describe says the design in a report's words.
func (s *Sequential) Describe() string {
	if s.Boundary != OBFSpending {
		return fmt.Sprintf("sequential %d-%d pairs, each look at level %.4f (overall %s)", s.MinPairs, s.MaxPairs, s.LookAlpha, numfmt.Significant(s.Alpha, levelDigits)) + s.familyWords()
	}
	d := fmt.Sprintf("sequential %d-%d pairs, O'Brien-Fleming spending: looks at levels %s to %s (overall %s)", s.MinPairs, s.MaxPairs,
		numfmt.Significant(s.LevelAt(s.MinPairs), 2), numfmt.Significant(s.LevelAt(s.MaxPairs), levelDigits), numfmt.Significant(s.Alpha, levelDigits))
	if s.Futility > 0 {
		d += fmt.Sprintf(", stopping undecided from pair %d where the conditional power falls below %s", FutilityFrom, numfmt.Significant(s.Futility, 2))
	}
	return d + s.familyWords()
}

// LevelAt is the level the look at n pairs tests at.
func (s *Sequential) LevelAt(n int) float64 {
	if i := n - s.MinPairs; s.Boundary == OBFSpending && i >= 0 && i < len(s.LookAlphas) {
		return s.LookAlphas[i]
	}
	return s.LookAlpha
}

// Rule is r held to the level of the look at n pairs.
func (s *Sequential) Rule(r Rule, n int) Rule {
	r.Alpha = s.LevelAt(n)
	return r
}

// ABBA is the order of n pairs in abba order: pair i ran its baseline
// first when i is even.
func ABBA(n int) []bool {
	baseFirst := make([]bool, n)
	for i := range baseFirst {
		baseFirst[i] = i%2 == 0
	}
	return baseFirst
}

// Looks are the design's looks over the pairs' log ratios d in block
// order (baseFirst: the pairs whose baseline ran first), each decided at
// its level, up to the first that decides or, with a Futility, is futile
// (its Futile set).
func (s *Sequential) Looks(d []float64, baseFirst []bool, r Rule) []Decision {
	var looks []Decision
	for n := s.MinPairs; n <= min(s.MaxPairs, len(d)); n++ {
		dec := CrossoverLogs(d[:n], baseFirst[:n], s.Rule(r, n))
		if !dec.Decided() && s.Futile(d[:n], baseFirst[:n], dec, r) {
			dec.Futile, dec.Why = true, s.futileWhy(dec)
		}
		looks = append(looks, dec)
		if dec.Ends() {
			break
		}
	}
	return looks
}

// Decide runs the design over the pairs (up to MaxPairs of them): the
// decision at the first look that ends the campaign, or at the last look
// there is, and its pairs. Its interval, whatever the verdict, is the
// one at the look's level for a Pocock design (a repeated confidence
// interval) and, for a spending design, the ordinary one at
// StopIntervalFactor times Alpha, whose level its Alpha then says (the
// look's level is in its Why).
func (s *Sequential) Decide(d []float64, baseFirst []bool, r Rule) (Decision, int) {
	looks := s.Looks(d, baseFirst, r)
	if len(looks) == 0 {
		return CrossoverLogs(d, baseFirst, r), len(d)
	}
	dec := looks[len(looks)-1]
	dec.Meaning = Meaning(dec.Verdict, dec.Effect, s.Alpha) // the looks together hold Alpha
	if dec.Interval == nil {
		return dec, dec.N
	}
	if s.Boundary != OBFSpending {
		dec.Meaning += fmt.Sprintf("; its interval is the repeated %s one, which holds the true change with %s confidence at whichever look the campaign stops", IntervalLevel(s.LookAlpha), IntervalLevel(s.Alpha))
		return dec, dec.N
	}
	level := StopIntervalFactor * s.Alpha
	if at := CrossoverLogs(d[:dec.N], baseFirst[:dec.N], Rule{Alpha: level, Effect: r.Effect, HigherIsBetter: r.HigherIsBetter, Method: r.Method}); at.Interval != nil {
		dec.Interval, dec.lo, dec.hi, dec.Period, dec.Alpha = at.Interval, at.lo, at.hi, at.Period, level
		dec.Meaning += fmt.Sprintf("; its interval is the %s one at the stopping look, which with this design's stops holds the true change in about %s of campaigns", IntervalLevel(level), IntervalLevel(s.Alpha))
	}
	return dec, dec.N
}

// StopIntervalFactor sets the interval a spending design prints at its
// stop: the ordinary one at StopIntervalFactor times Alpha (96% at 0.05).
// A campaign stops where its pairs lie far out, or close together, so the
// ordinary 1-Alpha interval at the stop held the true change in 92 to 95%
// of simulated campaigns, and the repeated one (at the look's level) in
// 98 to 99.5% at a change, wide because the early looks' levels are tiny;
// the 96% one in 93 to 97% in every noise model (docs/statistics.md).
const StopIntervalFactor = 0.8
