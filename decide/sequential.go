package decide

import "fmt"

// Sequential is a design that looks at the data after every pair from
// MinPairs to MaxPairs and stops at the first decided verdict. Each look
// tests at LookAlpha, one constant level (Pocock's idea) chosen by
// simulation so that the chance of any false verdict over all the looks
// stays Alpha: looking after every pair at Alpha itself would find a
// difference in an A/A campaign far more often than Alpha says.
type Sequential struct {
	MinPairs  int     `json:"min_pairs"`
	MaxPairs  int     `json:"max_pairs"`
	Alpha     float64 `json:"alpha"`
	LookAlpha float64 `json:"look_alpha"`
}

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

// NewSequential fixes a design, computing its per-look level; a bound out
// of range is a *DesignError.
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
	return &Sequential{MinPairs: minPairs, MaxPairs: maxPairs, Alpha: alpha, LookAlpha: LookAlpha(minPairs, maxPairs, alpha)}, nil
}

// Rule is r held to the per-look level.
func (s *Sequential) Rule(r Rule) Rule {
	r.Alpha = s.LookAlpha
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
// the per-look level, up to the first that decides.
func (s *Sequential) Looks(d []float64, baseFirst []bool, r Rule) []Decision {
	var looks []Decision
	for n := s.MinPairs; n <= min(s.MaxPairs, len(d)); n++ {
		dec := CrossoverLogs(d[:n], baseFirst[:n], s.Rule(r))
		looks = append(looks, dec)
		if dec.Decided() {
			break
		}
	}
	return looks
}

// Decide runs the design over the pairs (up to MaxPairs of them): the
// decision at the first look that decides, or at the last look there is,
// and its pairs. Its interval, whatever the verdict, is the one at the
// per-look level: a repeated confidence interval (Jennison and Turnbull),
// which holds the true change with 1-Alpha confidence at every look at
// once, and so at whichever look the campaign stopped. The ordinary
// 1-Alpha interval at the stopping look does not: after an early
// no-change it covered 91-93%.
func (s *Sequential) Decide(d []float64, baseFirst []bool, r Rule) (Decision, int) {
	looks := s.Looks(d, baseFirst, r)
	if len(looks) == 0 {
		return CrossoverLogs(d, baseFirst, r), len(d)
	}
	dec := looks[len(looks)-1]
	dec.Meaning = Meaning(dec.Verdict, dec.Effect, s.Alpha) // the looks together hold Alpha
	if dec.Interval != nil {
		dec.Meaning += fmt.Sprintf("; its interval is the repeated %s one, which holds the true change with %s confidence at whichever look the campaign stops", IntervalLevel(s.LookAlpha), IntervalLevel(s.Alpha))
	}
	return dec, dec.N
}
