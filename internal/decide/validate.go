package decide

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// The validation suite: simulated campaigns under the noise real systems
// show, decided by exactly the functions compare uses, so the table in
// docs/statistics.md says what a verdict is worth. Runs are in abba order
// as abbench run draws it from each campaign's seed (DrawnABBA: the first
// pair of blocks AB, BA, each later pair abba or baab); a model draws
// every run's log noise in plan order, so drift, carry-over and shared
// pair effects are modelled where they happen.

// Model is a noise model: the log noise of runs in plan order, treated
// saying which runs are of a treatment (their number is its length).
type Model struct {
	Name string
	Draw func(r *rand.Rand, treated []bool) []float64
}

// Effects are the true changes (percent) the suite injects: 0 is A/A.
var Effects = []float64{0, 1, 2, 3, 5}

// CampaignPairs is how many pairs a simulated campaign draws (the
// default sequential design's most): every design decides from the same
// runs, a design of fewer pairs from the first of them.
const CampaignPairs = DefaultMaxPairs

// Campaign is one simulated campaign.
type Campaign struct {
	// D are the pairs' log ratios in block order, BaseFirst says in which
	// the baseline ran first.
	D         []float64
	BaseFirst []bool
	// Base and Treat are the arms' values, pair by pair (the runs an
	// unpaired comparison such as benchstat's takes).
	Base, Treat []float64
}

// Outcome is what a design made of a campaign: its verdict, its interval
// in percent (nil when it gives none) and the runs it used.
type Outcome struct {
	Verdict  string
	Interval *[2]float64
	Runs     int
}

// A Design decides simulated campaigns. Repeated says its intervals are
// repeated confidence intervals, which hold at every look at once: at
// the look a campaign stopped they hold more often than their level, so
// only the lower coverage goal applies.
type Design struct {
	Name     string
	Repeated bool
	Decide   func(c Campaign, r Rule) Outcome
}

// Fixed is the design of pairs pairs, decided once.
func Fixed(pairs int) Design {
	return Design{Name: fmt.Sprintf("%d pairs", pairs), Decide: func(c Campaign, r Rule) Outcome {
		dec := CrossoverLogs(c.D[:pairs], c.BaseFirst[:pairs], r)
		return Outcome{dec.Verdict, dec.Interval, 2 * pairs}
	}}
}

// SequentialDesign is seq, as abbench run applies it; name says which
// boundary it is.
func SequentialDesign(name string, seq *Sequential) Design {
	return Design{Name: name, Repeated: seq.Boundary != OBFSpending, Decide: func(c Campaign, r Rule) Outcome {
		dec, n := seq.Decide(c.D[:seq.MaxPairs], c.BaseFirst[:seq.MaxPairs], r)
		return Outcome{dec.Verdict, dec.Interval, 2 * n}
	}}
}

// PocockDesign is the sequential design of minPairs to maxPairs pairs at
// one constant per-look level and no futility stop: abbench run's before
// the spending boundary, which plans made then keep.
func PocockDesign(minPairs, maxPairs int, alpha float64) *Sequential {
	return &Sequential{MinPairs: minPairs, MaxPairs: maxPairs, Alpha: alpha, LookAlpha: LookAlpha(minPairs, maxPairs, alpha)}
}

// Share is a count of hits out of N.
type Share struct{ Hits, N int }

// Rate is the share, 0 when there is none.
func (s Share) Rate() float64 {
	if s.N == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.N)
}

func (s *Share) add(hit bool) {
	s.N++
	if hit {
		s.Hits++
	}
}

// Row is one cell of the validation table: a model under a design.
type Row struct {
	Model, Design string
	Repeated      bool
	Trials        int
	// FalseRate is the share of A/A campaigns that said improved or
	// regressed.
	FalseRate float64
	// Power is the share that said improved, per effect of Effects[1:].
	Power []float64
	// MeanRuns is the mean number of runs (both arms) a campaign took,
	// per effect of Effects.
	MeanRuns []float64
	// Cover is the share of intervals that held the true change, over
	// every effect; CoverChange over the effects that are a change,
	// CoverNoChange over the A/A campaigns. (Not by verdict: a no-change
	// interval lies within the smallest effect, so it cannot hold a true
	// change beyond it, and an interval picked for being significant at
	// low power lies further from zero than the truth.)
	Cover, CoverChange, CoverNoChange Share
	// CoverIf are the same shares by the verdict said, over every effect:
	// improved or regressed, no-change, inconclusive (VerdictKinds).
	CoverIf [3]Share
	// found says, per effect of Effects[1:], which campaigns said
	// improved, in the order drawn: two rows of one Validate call are of
	// the same campaigns (campaigns names them), so PowerBelow pairs them.
	found     [][]bool
	campaigns *int
}

// VerdictKinds name CoverIf's shares.
var VerdictKinds = [3]string{"a change", "no-change", "inconclusive"}

// verdictKind is a verdict's index in VerdictKinds (-1 for descriptive).
func verdictKind(verdict string) int {
	switch verdict {
	case Improved, Regressed:
		return 0
	case NoChange:
		return 1
	case Inconclusive:
		return 2
	}
	return -1
}

// The goals of every cell: at most 5% false verdicts, and intervals that
// hold the true change at least 93% of the time, over every effect, at a
// change and at no change; at most 97% too for intervals that are not
// repeated ones, or the cell is marked wide.
const (
	GoalFalseRate   = 0.05
	GoalCoverageMin = 0.93
	GoalCoverageMax = 0.97
)

// mcZ is the one-sided 1% point of the normal: a simulated rate misses a
// goal only when it is beyond the goal by more than Monte Carlo error
// explains (a test exactly at 5% shows 5.2% in half of its cells).
const mcZ = 2.326

// Misses lists the goals the row misses, each with its figure: false
// verdicts above 5%, intervals that hold the true change less than 93% of
// the time.
func (row Row) Misses() []string {
	var m []string
	if se := math.Sqrt(GoalFalseRate * (1 - GoalFalseRate) / float64(row.Trials)); row.FalseRate > GoalFalseRate+mcZ*se {
		m = append(m, fmt.Sprintf("A/A false verdicts %.1f%% > %.0f%%", 100*row.FalseRate, 100*GoalFalseRate))
	}
	return append(m, row.coverage(func(c, se float64) bool { return c < GoalCoverageMin-mcZ*se }, "<", GoalCoverageMin)...)
}

// GoalPowerFrom is the least true change, in percent, at which a design
// must find the change at least as often as the reference it is held to
// (benchstat's comparison of the same runs, in bench/statval).
const GoalPowerFrom = 2.0

// ErrOtherCampaigns is PowerBelow's error for rows that Validate did not
// make of the same campaigns: their powers cannot be paired.
var ErrOtherCampaigns = errors.New("the rows are not of the same simulated campaigns (one Validate call)")

// PowerBelow lists the true changes of GoalPowerFrom or more that the
// row's design finds less often than ref's on the same campaigns, each
// with both figures. It pairs them campaign by campaign (McNemar): a
// change is missed only when the campaigns ref found and the row did not
// outnumber the reverse by more than Monte Carlo error explains (mcZ
// standard errors of the difference), as the other goals are judged.
func (row Row) PowerBelow(ref Row) ([]string, error) {
	if row.campaigns == nil || row.campaigns != ref.campaigns {
		return nil, ErrOtherCampaigns
	}
	var m []string
	for i, effect := range Effects[1:] {
		if effect < GoalPowerFrom {
			continue
		}
		onlyRef, onlyRow := 0, 0
		for t, found := range ref.found[i] {
			switch {
			case found && !row.found[i][t]:
				onlyRef++
			case !found && row.found[i][t]:
				onlyRow++
			}
		}
		if diff := float64(onlyRef - onlyRow); diff > 0 && diff > mcZ*math.Sqrt(float64(onlyRef+onlyRow)) {
			m = append(m, fmt.Sprintf("power +%g%% %.1f%% < %.1f%% (%s; found by it alone in %d campaigns, by this design alone in %d)",
				effect, 100*row.Power[i], 100*ref.Power[i], ref.Design, onlyRef, onlyRow))
		}
	}
	return m, nil
}

// Wide lists the coverages above 97% of a design whose intervals are not
// repeated ones: intervals wider than their level needs, which cost power
// but claim nothing false.
func (row Row) Wide() []string {
	if row.Repeated {
		return nil
	}
	return row.coverage(func(c, se float64) bool { return c > GoalCoverageMax+mcZ*se }, ">", GoalCoverageMax)
}

// coverage lists the coverages for which miss says so, against goal.
func (row Row) coverage(miss func(c, se float64) bool, op string, goal float64) []string {
	var m []string
	for _, c := range []struct {
		what  string
		share Share
	}{{"coverage", row.Cover}, {"coverage at a change", row.CoverChange}, {"coverage at no change", row.CoverNoChange}} {
		if c.share.N == 0 {
			continue
		}
		rate := c.share.Rate()
		if miss(rate, math.Sqrt(math.Max(rate*(1-rate), 0.01)/float64(c.share.N))) {
			m = append(m, fmt.Sprintf("%s %.1f%% %s %.0f%%", c.what, 100*rate, op, 100*goal))
		}
	}
	return m
}

// Validate simulates trials campaigns per effect of one model (seeded by
// seed) and decides each with every design: one row per design, from the
// same runs.
func Validate(m Model, designs []Design, rule Rule, trials int, seed uint64) []Row {
	rng := rand.New(rand.NewPCG(seed, 0xab))
	rows := make([]Row, len(designs))
	campaigns := new(int)
	for i, d := range designs {
		rows[i] = Row{Model: m.Name, Design: d.Name, Repeated: d.Repeated, Trials: trials, campaigns: campaigns}
	}
	for ei, effect := range Effects {
		says := make([]int, len(designs))
		runs := make([]int, len(designs))
		found := make([][]bool, len(designs))
		for i := range found {
			found[i] = make([]bool, trials)
		}
		for t := range trials {
			c := simulate(m, rng, effect)
			for i, d := range designs {
				out := d.Decide(c, rule)
				runs[i] += out.Runs
				if counts(out.Verdict, effect) {
					says[i]++
					found[i][t] = true
				}
				rows[i].cover(out, effect)
			}
		}
		for i := range rows {
			rate := float64(says[i]) / float64(trials)
			if ei == 0 {
				rows[i].FalseRate = rate
			} else {
				rows[i].Power = append(rows[i].Power, rate)
				rows[i].found = append(rows[i].found, found[i])
			}
			rows[i].MeanRuns = append(rows[i].MeanRuns, float64(runs[i])/float64(trials))
		}
	}
	return rows
}

// cover counts whether an outcome's interval held the true change.
func (row *Row) cover(out Outcome, effect float64) {
	if out.Interval == nil {
		return
	}
	held := out.Interval[0] <= effect && effect <= out.Interval[1]
	row.Cover.add(held)
	if k := verdictKind(out.Verdict); k >= 0 {
		row.CoverIf[k].add(held)
	}
	if effect == 0 {
		row.CoverNoChange.add(held)
	} else {
		row.CoverChange.add(held)
	}
}

// simulate draws one campaign of CampaignPairs pairs in abba order, drawn
// from a seed of its own as abbench run draws it, whose true change is
// effect percent.
func simulate(m Model, rng *rand.Rand, effect float64) Campaign {
	c := Campaign{D: make([]float64, CampaignPairs), BaseFirst: DrawnABBA(CampaignPairs, rng.Uint64())}
	e := m.Draw(rng, treatedRuns(c.BaseFirst, 1))
	for i := range c.D {
		base, treat := e[2*i], e[2*i+1] // plan order
		if !c.BaseFirst[i] {
			base, treat = treat, base
		}
		treat += math.Log1p(effect / 100)
		c.D[i] = treat - base
		c.Base, c.Treat = append(c.Base, math.Exp(base)), append(c.Treat, math.Exp(treat))
	}
	return c
}

// counts says whether a verdict at a true change of effect counts for its
// row: a false verdict at no change, an improvement at a change.
func counts(verdict string, effect float64) bool {
	if effect == 0 {
		return verdict == Improved || verdict == Regressed
	}
	return effect > 0 && verdict == Improved
}

// treatedRuns says which runs of blocks of the baseline and k treatments
// are a treatment's, in plan order: a block whose baseline ran first
// (baseFirst) is the baseline then the treatments, any other the
// treatments then the baseline (its arms reversed).
func treatedRuns(baseFirst []bool, k int) []bool {
	treated := make([]bool, 0, (k+1)*len(baseFirst))
	for _, first := range baseFirst {
		base := k // the block reversed: the baseline last
		if first {
			base = 0
		}
		for j := range k + 1 {
			treated = append(treated, j != base)
		}
	}
	return treated
}
