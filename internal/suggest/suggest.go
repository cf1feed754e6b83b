// Package suggest finds the name a person most likely meant: the closest
// of the names that exist to one that does not (a mistyped key, metric
// or file), for an error's "did you mean ...?".
package suggest

import "strings"

// Closest is the candidate within maxEdits edits of word (Levenshtein,
// bytewise, ASCII case ignored: P99_TTFT_MS means p99_ttft_ms) that is
// nearest to it, the first of equals; "" when none is. word itself is
// never suggested: it is what was refused.
func Closest(word string, candidates []string, maxEdits int) string {
	best, bestDist := "", maxEdits+1
	lower := strings.ToLower(word)
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := Distance(lower, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b: the fewest single-byte
// insertions, deletions and substitutions that make one the other.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
