package campaign

import (
	"math/rand/v2"
	"slices"
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
// random shuffles all runs with seed.
func Order(armNames []string, repeat int, how string, seed uint64) []string {
	var seq []string
	for i := range repeat {
		block := slices.Clone(armNames)
		if how == OrderABBA && i%2 == 1 {
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
