package campaign

import (
	"math/rand/v2"
	"slices"

	"github.com/abbench/abbench/internal/decide"
)

// The run orders.
const (
	// OrderABBA runs blocks of one run of every arm, alternating forward
	// and reverse (A B, B A, A B, ...): each block is a pair the
	// statistics compare within, and a slow drift favours neither arm.
	OrderABBA        = "abba"
	OrderInterleaved = "interleaved"
	OrderRandom      = "random"
)

// Orders lists the orders Config.Order takes.
var Orders = []string{OrderABBA, OrderInterleaved, OrderRandom}

// Order lists the arm of every run: abba alternates blocks forward and
// reversed; interleaved repeats the arms in file order (A B A B ...);
// random shuffles all runs with seed. It is the order of plans made
// before abba's was drawn (DrawnOrder), which resume as they were made.
func Order(armNames []string, repeat int, how string, seed uint64) []string {
	return order(armNames, repeat, how, seed, false)
}

// DrawnOrder is Order with abba's blocks drawn: from the second pair of
// blocks on, each pair runs abba or baab as a generator seeded with seed
// draws (decide.DrawnABBA, the draw the validation's simulated campaigns
// run too; the seed is recorded and signed with the plan), so a drift or a
// periodic load that happens to follow the fixed alternation cannot
// favour an arm. Drawn by pairs of blocks, the orders stay as balanced as
// the fixed alternation's at every look (equal at an even count of
// pairs), which the crossover test and the looks' simulated levels
// assume. The first pair stays abba: a campaign's first runs are its arms
// in the scenario's order wherever the seed falls (run 1 is the first
// arm's), as documentation and scripts name them.
func DrawnOrder(armNames []string, repeat int, how string, seed uint64) []string {
	return order(armNames, repeat, how, seed, how == OrderABBA)
}

func order(armNames []string, repeat int, how string, seed uint64, drawn bool) []string {
	forward := decide.ABBA(repeat) // block i in the arms' order, else reversed
	if drawn {
		forward = decide.DrawnABBA(repeat, seed) // the same draws the validation simulates
	}
	var seq []string
	for i := range repeat {
		block := slices.Clone(armNames)
		if how == OrderABBA && !forward[i] {
			slices.Reverse(block)
		}
		seq = append(seq, block...)
	}
	if how == OrderRandom {
		r := rand.New(rand.NewPCG(seed, 0x61626265))
		r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	}
	return seq
}
