package decide

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The validation suite: simulated campaigns under the noise real systems
// show, decided by exactly the functions compare uses, so the table in
// docs/statistics.md says what a verdict is worth. Runs are in abba order
// (pair i is AB when i is even, BA when odd); a model draws every run's
// log noise in plan order, so drift and shared pair effects are modelled
// where they happen.

// Model is a noise model: the log noise of runs in plan order.
type Model struct {
	Name string
	Draw func(r *rand.Rand, runs int) []float64
}

func normalNoise(cv float64) func(*rand.Rand, int) []float64 {
	return func(r *rand.Rand, runs int) []float64 {
		e := make([]float64, runs)
		for i := range e {
			e[i] = cv * r.NormFloat64()
		}
		return e
	}
}

// Models are the suite's noise models; each has a run-to-run spread of
// about 1% unless its name says otherwise.
var Models = []Model{
	{"normal, CV 0.5%", normalNoise(0.005)},
	{"normal, CV 1%", normalNoise(0.01)},
	{"normal, CV 3%", normalNoise(0.03)},
	{"lognormal (shape 0.5, right-skewed), CV 1%", func(r *rand.Rand, runs int) []float64 {
		const shape = 0.5
		mean := math.Exp(shape * shape / 2)
		sd := math.Sqrt((math.Exp(shape*shape) - 1) * math.Exp(shape*shape))
		e := make([]float64, runs)
		for i := range e {
			e[i] = math.Log1p(0.01 * (math.Exp(shape*r.NormFloat64()) - mean) / sd)
		}
		return e
	}},
	{"Student t, 3 df, scale 1%", func(r *rand.Rand, runs int) []float64 {
		e := make([]float64, runs)
		for i := range e {
			var chi float64
			for range 3 {
				z := r.NormFloat64()
				chi += z * z
			}
			e[i] = 0.01 / math.Sqrt(3) * r.NormFloat64() / math.Sqrt(chi/3)
		}
		return e
	}},
	{"5% of runs 20% slow, CV 1%", func(r *rand.Rand, runs int) []float64 {
		e := normalNoise(0.01)(r, runs)
		for i := range e {
			if r.Float64() < 0.05 {
				e[i] += math.Log(0.8)
			}
		}
		return e
	}},
	{"linear drift 0.2%/run, CV 1%", func(r *rand.Rand, runs int) []float64 {
		e := normalNoise(0.01)(r, runs)
		for i := range e {
			e[i] += 0.002 * float64(i)
		}
		return e
	}},
	{"two machine states 3% apart, CV 0.5%", func(r *rand.Rand, runs int) []float64 {
		e := normalNoise(0.005)(r, runs)
		for i := range e {
			if r.IntN(2) == 1 {
				e[i] += math.Log(0.97)
			}
		}
		return e
	}},
	{"second run of a pair 1% faster (order effect), CV 1%", func(r *rand.Rand, runs int) []float64 {
		e := normalNoise(0.01)(r, runs)
		for i := 1; i < runs; i += 2 {
			e[i] += math.Log(1.01)
		}
		return e
	}},
	{"2% allocation effect per pair, CV 0.5%", func(r *rand.Rand, runs int) []float64 {
		e := normalNoise(0.005)(r, runs)
		for i := 0; i < runs; i += 2 {
			a := 0.02 * r.NormFloat64()
			e[i] += a
			if i+1 < runs {
				e[i+1] += a
			}
		}
		return e
	}},
}

// Effects are the true changes (percent) the suite injects: 0 is A/A.
var Effects = []float64{0, 1, 3, 5}

// Row is one cell of the validation table: a model under a design.
type Row struct {
	Model  string
	Design string
	// FalseRate is the share of A/A campaigns that said improved or
	// regressed.
	FalseRate float64
	// Power is the share that said improved, per effect of Effects[1:].
	Power []float64
	// MeanRuns is the mean number of runs (both arms) a campaign took at
	// the largest effect (fixed designs: always the same).
	MeanRuns float64
	// Coverage is the share of intervals that held the true change, over
	// every effect.
	Coverage  float64
	Intervals int // how many intervals Coverage counts
	Trials    int
}

// The goals of every cell: at most 5% false verdicts, and intervals that
// hold the true change between 93% and 97% of the time.
const (
	GoalFalseRate   = 0.05
	GoalCoverageMin = 0.93
	GoalCoverageMax = 0.97
)

// mcZ is the one-sided 1% point of the normal: a simulated rate misses a
// goal only when it is beyond the goal by more than Monte Carlo error
// explains (a test exactly at 5% shows 5.2% in half of its cells).
const mcZ = 2.326

// Misses lists the goals the row misses, each with its figure.
func (row Row) Misses() []string {
	var m []string
	if se := math.Sqrt(GoalFalseRate * (1 - GoalFalseRate) / float64(row.Trials)); row.FalseRate > GoalFalseRate+mcZ*se {
		m = append(m, fmt.Sprintf("A/A false verdicts %.1f%% > %.0f%%", 100*row.FalseRate, 100*GoalFalseRate))
	}
	if row.Intervals > 0 {
		c := row.Coverage
		se := math.Sqrt(math.Max(c*(1-c), 0.01) / float64(row.Intervals))
		if c > GoalCoverageMax+mcZ*se || c < GoalCoverageMin-mcZ*se {
			m = append(m, fmt.Sprintf("coverage %.1f%% outside %.0f-%.0f%%", 100*c, 100*GoalCoverageMin, 100*GoalCoverageMax))
		}
	}
	return m
}

// Validate simulates trials campaigns per effect of one model under a
// fixed design of pairs (seq nil) or a sequential one.
func Validate(m Model, pairs int, seq *Sequential, rule Rule, trials int, seed uint64) Row {
	rng := rand.New(rand.NewPCG(seed, 0xab))
	row := Row{Model: m.Name, Trials: trials, Design: fmt.Sprintf("%d pairs", pairs)}
	if seq != nil {
		row.Design = fmt.Sprintf("sequential %d-%d pairs", seq.MinPairs, seq.MaxPairs)
		pairs = seq.MaxPairs
	}
	var covered, intervals int
	for ei, effect := range Effects {
		var says, runs int
		for range trials {
			dec, n := decideRun(pairLogs(m, rng, pairs, effect), pairs, seq, rule)
			runs += 2 * n
			if counts(dec, effect) {
				says++
			}
			if dec.Interval != nil {
				intervals++
				if dec.Interval[0] <= effect && effect <= dec.Interval[1] {
					covered++
				}
			}
		}
		rate := float64(says) / float64(trials)
		if ei == 0 {
			row.FalseRate = rate
		} else {
			row.Power = append(row.Power, rate)
		}
		if ei == len(Effects)-1 {
			row.MeanRuns = float64(runs) / float64(trials)
		}
	}
	row.Intervals = intervals
	if intervals > 0 {
		row.Coverage = float64(covered) / float64(intervals)
	}
	return row
}

// pairLogs draws one simulated campaign of pairs in abba order whose true
// change is effect percent: the pairs' log ratios.
func pairLogs(m Model, rng *rand.Rand, pairs int, effect float64) []float64 {
	e := m.Draw(rng, 2*pairs)
	d := make([]float64, pairs)
	for i := range d {
		a, b := e[2*i], e[2*i+1] // plan order
		if i%2 == 1 {
			a, b = b, a // BA: the baseline ran second
		}
		d[i] = math.Log1p(effect/100) + b - a
	}
	return d
}

// counts says whether a decision at a true change of effect counts for
// its row: a false verdict at no change, an improvement at a change.
func counts(dec Decision, effect float64) bool {
	if effect == 0 {
		return dec.Verdict == Improved || dec.Verdict == Regressed
	}
	return effect > 0 && dec.Verdict == Improved
}

// decideRun decides one simulated campaign: at its end (fixed design) or
// at the first decided look; it returns the decision and the pairs used.
func decideRun(d []float64, pairs int, seq *Sequential, rule Rule) (Decision, int) {
	if seq == nil {
		return CrossoverLogs(d, ABBA(len(d)), rule), pairs
	}
	return seq.Decide(d, ABBA(len(d)), rule)
}
