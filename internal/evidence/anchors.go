package evidence

import (
	"bytes"
	"math"
)

// needleStarts are the places in lit a needle may start: far enough from
// its end that the needle holds at least 4 bytes (or all of a shorter
// literal).
func needleStarts(lit []byte) int { return len(lit) - min(len(lit), 4) + 1 }

// anchorBytes chooses the bytes the block search makes its passes for: a
// set holding, for every literal, a byte a needle of it may start with,
// that costs least in passes (passCost each) and stops (a byte's count in
// the sample, through the rarest byte of each literal it holds). Every set
// of up to three bytes is weighed, so the rules' order decides nothing (in
// order, a first rule's rarest byte could take a pass that a later rule's
// choice makes needless); more literals than that with no byte in common
// take each its rarest byte besides.
func anchorBytes(lits [][]byte, freq *[256]int, passCost int) []byte {
	var candidates []byte
	var seen [256]bool
	for _, lit := range lits {
		for _, b := range lit[:needleStarts(lit)] {
			if !seen[b] {
				seen[b] = true
				candidates = append(candidates, b)
			}
		}
	}
	stops := stopCosts(lits, candidates, freq)
	nobyte := len(candidates)
	best, bestCost := [3]int{}, none
	for i := range candidates {
		for j := i + 1; j <= nobyte; j++ {
			for l := j + 1; l <= nobyte+1; l++ {
				set := [3]int{i, j, min(l, nobyte)}
				if cost := setCost(set, stops, nobyte, passCost); cost < bestCost {
					best, bestCost = set, cost
				}
			}
		}
	}
	var out []byte
	if bestCost < none {
		for _, i := range best {
			if i != nobyte {
				out = append(out, candidates[i])
			}
		}
		return out
	}
	for _, lit := range lits { // no set of three covers them
		out = append(out, rarest(lit[:needleStarts(lit)], freq))
	}
	return out
}

// stopCosts is, by literal and candidate byte, what the byte costs the
// literal in stops: none where it cannot start a needle of it. Each row
// has one more place, for no byte.
func stopCosts(lits [][]byte, candidates []byte, freq *[256]int) [][]int {
	stops := make([][]int, len(lits))
	for k, lit := range lits {
		stops[k] = make([]int, len(candidates)+1)
		for i, c := range candidates {
			stops[k][i] = none
			if bytes.IndexByte(lit[:needleStarts(lit)], c) >= 0 {
				stops[k][i] = freq[c]
			}
		}
		stops[k][len(candidates)] = none
	}
	return stops
}

// none is the cost of a set that leaves a literal without a needle.
const none = math.MaxInt

// setCost is what searching for the candidates set (nobyte: none) costs.
func setCost(set [3]int, stops [][]int, nobyte, passCost int) int {
	cost := 0
	for _, i := range set {
		if i != nobyte {
			cost += passCost
		}
	}
	for _, s := range stops {
		least := min(s[set[0]], s[set[1]], s[set[2]])
		if least == none {
			return none
		}
		cost += least
	}
	return cost
}

// rarest is the byte of bs that the sample holds least.
func rarest(bs []byte, freq *[256]int) byte {
	r := bs[0]
	for _, b := range bs {
		if freq[b] < freq[r] {
			r = b
		}
	}
	return r
}
