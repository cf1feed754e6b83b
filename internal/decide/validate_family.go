package decide

import (
	"math"
	"math/rand/v2"
)

// FamilyRow is the A/A false-verdict rate of a sequential design over a
// family of treatments compared with one baseline: the share of
// campaigns in which any treatment said a change. EachRate is each
// treatment's own share, in its place in the block after the baseline,
// against its share of alpha: the family's rate says whether the family
// holds alpha, each treatment's which comparison does not hold its share
// (under a 2% allocation effect shared by two runs, the second
// treatment, whose pairs of a pair of blocks share an allocation through
// the baseline).
type FamilyRow struct {
	Model      string
	Treatments int
	Trials     int
	FalseRate  float64
	EachRate   []float64
}

// Misses says whether the family misses its goal: more false verdicts
// than GoalFalseRate beyond Monte Carlo error.
func (row FamilyRow) Misses() bool {
	se := math.Sqrt(GoalFalseRate * (1 - GoalFalseRate) / float64(row.Trials))
	return row.FalseRate > GoalFalseRate+mcZ*se
}

// ValidateFamily simulates trials A/A campaigns of one model (seeded by
// seed) whose blocks hold the baseline and k treatments in abba order
// (the baseline first in a block of the order's forward blocks, last in a
// reversed one, drawn from each campaign's own seed as abbench run draws
// them: DrawnABBA), each treatment decided against the baseline run of its
// block by seq's design for a family of k (Sequential.Family), as compare
// decides them; the campaign says a false change when any does.
func ValidateFamily(m Model, seq *Sequential, k int, rule Rule, trials int, seed uint64) FamilyRow {
	rng := rand.New(rand.NewPCG(seed, 0xfa))
	design := seq.Family(k)
	pairs := seq.MaxPairs
	d := make([][]float64, k)
	for i := range d {
		d[i] = make([]float64, pairs)
	}
	falses := 0
	each := make([]int, k)
	for range trials {
		baseFirst := DrawnABBA(pairs, rng.Uint64())
		e := m.Draw(rng, treatedRuns(baseFirst, k))
		for b := range pairs {
			block := e[(k+1)*b : (k+1)*(b+1)]
			for t := range k {
				base, treat := block[0], block[t+1]
				if !baseFirst[b] { // reversed: the baseline ran last
					base, treat = block[k], block[k-1-t]
				}
				d[t][b] = treat - base
			}
		}
		said := false
		for t := range k {
			dec, _ := design.Decide(d[t], baseFirst, rule)
			if dec.Verdict == Improved || dec.Verdict == Regressed {
				each[t]++
				said = true
			}
		}
		if said {
			falses++
		}
	}
	row := FamilyRow{Model: m.Name, Treatments: k, Trials: trials, FalseRate: float64(falses) / float64(trials)}
	for _, n := range each {
		row.EachRate = append(row.EachRate, float64(n)/float64(trials))
	}
	return row
}
