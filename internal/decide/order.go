package decide

import "math/rand/v2"

// ABBA is the order of n pairs in the fixed abba alternation: pair i ran
// its baseline (the first arm) first when i is even. Plans made before
// the drawn order (DrawnABBA) resume in it.
func ABBA(n int) []bool {
	baseFirst := make([]bool, n)
	for i := range baseFirst {
		baseFirst[i] = i%2 == 0
	}
	return baseFirst
}

// abbaStream tells the generator of abba's draws from the other streams
// of a campaign's seed (the random order's), one seed driving them all.
const abbaStream = 0x61626261

// DrawnABBA is the order of n blocks in abba order as a campaign of seed
// runs them (campaign.DrawnOrder's, and the validation's simulated
// campaigns'): block i ran its first arm (the baseline) first when
// DrawnABBA(n, seed)[i]. The first pair of blocks is AB, BA; from the
// second pair of blocks on, each pair runs abba or baab as a generator
// seeded with seed draws, so a drift or a periodic load that follows the
// fixed alternation cannot favour an arm. Drawn by pairs, each order
// holds half the blocks at every even count, as the crossover test and
// the looks' simulated levels assume.
func DrawnABBA(n int, seed uint64) []bool {
	r := rand.New(rand.NewPCG(seed, abbaStream))
	firstFirst := make([]bool, n)
	reverseFirst := false // of the pair of blocks the block is in
	for i := range firstFirst {
		if i%2 == 0 && i >= 2 {
			reverseFirst = r.IntN(2) == 1
		}
		firstFirst[i] = (i%2 == 1) == reverseFirst
	}
	return firstFirst
}
