package decide

import (
	"fmt"
	"math"

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
	// Treatments, Metrics and Cells are the family a design of FamilyOf
	// shares its alpha among (treatments times metrics times a sweep's
	// cells), FamilyAlpha the family's alpha (0 for one test).
	Treatments  int     `json:"treatments,omitempty"`
	Metrics     int     `json:"metrics,omitempty"`
	Cells       int     `json:"cells,omitempty"`
	FamilyAlpha float64 `json:"family_alpha,omitempty"`
	// SkipUnreachable says a look whose test cannot reach its level is
	// not taken (Looks): NewSequential's designs; plans made before
	// take every look.
	SkipUnreachable bool `json:"skip_unreachable,omitempty"`
	// Skipped are the looks not taken (Skipping), by pair count.
	Skipped []int `json:"skipped,omitempty"`

	// candidate is a futility stop measured in place of Futile's own
	// (WithStop); never in a plan, so never in its JSON.
	candidate func(s *Sequential, d []float64, baseFirst []bool, dec Decision, r Rule) bool
}

// DefaultMaxPairs is the most pairs abbench run's sequential design
// takes unless told (--max-pairs), DefaultFutility the conditional power
// below which it stops undecided: together with OBFSpending, the design
// that finds a change of 2% or more at least as often as benchstat on
// 10+10 of the same runs in every noise model of docs/statistics.md, and
// a true +5% at 5% run-to-run noise more often for each run it spends.
// Over 14 pairs it spent fewer runs than benchstat at 5% noise, but its
// futility stop gave up on Student t campaigns that would have found
// +2% (98.3% against benchstat's 99.3%); over 18 the stop's conditional
// power reaches further, and the looks' levels are stricter early, so
// every A/A rate fell too (at most 4.4%, a family included).
const (
	DefaultMaxPairs = 18
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
		LookAlphas: OBFLevels(minPairs, maxPairs, alpha), Futility: DefaultFutility, SkipUnreachable: true}, nil
}

// Describe says the design in a report's words.
func (s *Sequential) Describe() string {
	if s.Boundary != OBFSpending {
		return fmt.Sprintf("sequential %d-%d pairs, each look at level %.4f (overall %s)", s.MinPairs, s.MaxPairs, s.LookAlpha, numfmt.Significant(s.Alpha, levelDigits)) + s.familyWords()
	}
	d := fmt.Sprintf("sequential %d-%d pairs, O'Brien-Fleming spending: looks at levels %s to %s (overall %s)", s.MinPairs, s.MaxPairs,
		numfmt.Significant(s.LevelAt(s.MinPairs), 2), numfmt.Significant(s.LevelAt(s.MaxPairs), levelDigits), numfmt.Significant(s.Alpha, levelDigits))
	if s.MinPairs == s.MaxPairs {
		d = fmt.Sprintf("sequential %d pairs, one look at level %s (overall %s)", s.MinPairs,
			numfmt.Significant(s.LevelAt(s.MinPairs), levelDigits), numfmt.Significant(s.Alpha, levelDigits))
	}
	if s.Futility > 0 && s.MaxPairs > FutilityFrom { // Futile's looks: from FutilityFrom, before the last
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

// Looks are the design's looks over the pairs' log ratios d in block
// order (baseFirst: the pairs whose baseline ran first), each decided at
// its level, up to the first that decides or, with a Futility, is futile
// (its Futile set).
//
// A look whose test cannot reach its level (the signed-rank's smallest p
// above it: Sequential.cannotReject) is not taken: it decides nothing,
// says so (Skipped), and the looks after it test at the levels of the
// design without it (Skipping), which spend its share of alpha.
func (s *Sequential) Looks(d []float64, baseFirst []bool, r Rule) []Decision {
	var looks []Decision
	var skipped []int
	for n := s.MinPairs; n <= min(s.MaxPairs, len(d)); n++ {
		s := s.Skipping(skipped)
		dec := CrossoverLogs(d[:n], baseFirst[:n], s.Rule(r, n))
		if s.cannotReject(d[:n], dec) {
			dec.Skipped, dec.Why = true, s.skipWhy(d[:n], dec.Alpha)
			dec.Verdict, dec.Meaning = Inconclusive, Meaning(Inconclusive, dec.Effect, dec.Alpha)
			skipped = append(skipped, n)
			looks = append(looks, dec)
			continue
		}
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
// interval) and, for a spending design, the stagewise 1-Alpha interval,
// with the stagewise p (stagewise.go), at the design's own ends (a look
// that decided or was futile, or the last); where the pairs end before
// any of them, the look's own interval and p at its level (Repeated).
// The look's own level and nominal p are in its Why.
func (s *Sequential) Decide(d []float64, baseFirst []bool, r Rule) (Decision, int) {
	dec, s := s.stop(d, baseFirst, r) // the design of the looks taken
	if dec.Interval == nil || len(d) < s.MinPairs {
		return dec, dec.N
	}
	if s.Boundary != OBFSpending {
		dec.Meaning += fmt.Sprintf("; its interval is the repeated %s one, which holds the true change with %s confidence at whichever look the campaign stops", IntervalLevel(s.LookAlpha), IntervalLevel(s.Alpha))
		return dec, dec.N
	}
	if dec.P == nil {
		return dec, dec.N
	}
	if !dec.Ends() && dec.N < s.MaxPairs {
		// The pairs end before this test's own stop: the campaign
		// stopped for another test of its family (the headline metric,
		// another treatment), or is not over. The stagewise ordering
		// knows only the design's own ends, and its p could fall below
		// alpha beside a look that did not reject (the metric called
		// inconclusive beside a 95% interval that excluded no change).
		// The look's own interval at the look's level is the repeated
		// confidence interval of the boundary, which holds the true
		// change with 1-Alpha confidence whatever made the campaign stop,
		// and holds no change exactly when the look does not reject.
		dec.Meaning += fmt.Sprintf("; the campaign stopped before this test's own stop, so its interval is the repeated one at the look's level %s: it holds the true change with %s confidence whatever made the campaign stop",
			numfmt.Significant(dec.Alpha, levelDigits), IntervalLevel(s.Alpha))
		dec.Repeated = true
		return dec, dec.N
	}
	// The look's statistic on the normal scale: the quantile of its own
	// p, so that it crosses the look's boundary exactly when the look's
	// test does, at whatever degrees of freedom.
	z := math.Copysign(normalQuantile(1-math.Max(*dec.P, 1e-300)/2), dec.est)
	// The bounds are drifts on the normal scale; a t look carries them
	// back through its own t (tChange): a bound delta below the statistic
	// is the change at which (est-change)/se lies at the t quantile of
	// the normal's at delta, so a stop at the first look prints exactly
	// the look's t-interval. est/z instead (z the normal quantile of the
	// t's p) grows with t far out in the t's tails (at a t of 12 with 2
	// degrees of freedom, z is 2.7): the interval covered 95.9 to 98.2%
	// per noise model and 100% at +5% and pair sd 0.7% (bench/statistics.sh
	// --campaigns 1000). Only a look without a t (the signed-rank) keeps
	// est/z, or, near zero where that ratio says nothing, the scale of
	// the look's interval. A look stops with a change only where its
	// estimate reaches the smallest effect too, so the ordering's edges
	// are the boundary or that, in units of the look's standard error.
	root := math.Sqrt(float64(dec.N))
	if dec.df > 0 && dec.hi > dec.lo {
		p, lo, hi := s.stagewise(dec.N, z, math.Log1p(r.defaults().Effect/100)/(dec.tSE()*root))
		return dec.stagewiseAt(s.Alpha, p, dec.tChange(z-lo*root), dec.tChange(z-hi*root)), dec.N
	}
	scale := dec.est / z
	if math.Abs(z) < 0.5 {
		scale = (dec.hi - dec.lo) / (2 * normalQuantile(1-dec.Alpha/2))
	}
	if !(scale > 0) || math.IsInf(z, 0) {
		return dec, dec.N
	}
	p, lo, hi := s.stagewise(dec.N, z, 0)
	return dec.stagewiseAt(s.Alpha, p, lo*root*scale, hi*root*scale), dec.N
}

// stagewiseAt is dec with the stagewise p and interval (lo, hi on the log
// scale) at level alpha, and its meaning saying so.
func (dec Decision) stagewiseAt(alpha, p, lo, hi float64) Decision {
	dec.Stagewise = true
	dec.P, dec.lo, dec.hi, dec.Alpha = &p, lo, hi, alpha
	dec.Interval = &[2]float64{pct(dec.lo), pct(dec.hi)}
	dec.Meaning += fmt.Sprintf("; its %s interval and p are the stagewise ones, which take the design's looks into account: %s of such campaigns hold the true change in their interval, whichever look they stop at",
		IntervalLevel(alpha), IntervalLevel(alpha))
	return dec
}

// stop is the decision at the first look that ends the campaign, or at
// the last look there is, as the looks made it (the look's interval and
// nominal p), and the design of the looks taken (Skipping); before
// MinPairs, the decision at the pairs there are.
func (s *Sequential) stop(d []float64, baseFirst []bool, r Rule) (Decision, *Sequential) {
	looks := s.Looks(d, baseFirst, r)
	if len(looks) == 0 {
		return CrossoverLogs(d, baseFirst, r), s
	}
	var skipped []int
	for _, l := range looks {
		if l.Skipped {
			skipped = append(skipped, l.N)
		}
	}
	dec := looks[len(looks)-1]
	if !dec.Skipped {
		dec.Meaning = Meaning(dec.Verdict, dec.Effect, s.Alpha) // the looks together hold Alpha
	}
	return dec, s.Skipping(skipped)
}
