package campaign

import "math/rand/v2"

// The run orders.
const (
	OrderInterleaved = "interleaved"
	OrderRandom      = "random"
)

// Orders lists the orders Config.Order takes.
var Orders = []string{OrderInterleaved, OrderRandom}

// Order lists the arm of every run: interleaved repeats the arms in file
// order (A B A B ...); random shuffles all runs with seed.
func Order(armNames []string, repeat int, how string, seed uint64) []string {
	var seq []string
	for range repeat {
		seq = append(seq, armNames...)
	}
	if how == OrderRandom {
		r := rand.New(rand.NewPCG(seed, 0x61626265))
		r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	}
	return seq
}
