package scenarios

import "strings"

// yamlSyntax are yaml.v3's messages for a line that does not fit the
// structure around it, which is nearly always its indentation.
var yamlSyntax = []string{
	"mapping values are not allowed in this context",
	"did not find expected key",
	"could not find expected ':'",
	"did not find expected '-' indicator",
	"found character that cannot start any token",
}

// indentationHint says what to look at when yaml.v3 found a line out of
// place: its message names the parser's state, not the fix.
func indentationHint(msg string) string {
	for _, s := range yamlSyntax {
		if strings.Contains(msg, s) {
			return msg + ": check the indentation of this line and the one before (YAML nests by spaces, never tabs: a key belongs to the mapping it lines up with)"
		}
	}
	return msg
}

// didYouMean is the allowed key closest to an unknown one, within two
// edits (a typo), or "".
func didYouMean(key string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if d := editDistance(strings.ToLower(key), a); d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
