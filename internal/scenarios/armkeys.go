package scenarios

import (
	"slices"

	"github.com/abbench/abbench/internal/suggest"
)

// keysDiffer records how arm name's env keys (sorted) differ from those
// of arm first, the first arm declared: each key one of them sets and
// the other does not, at that key's line, beside the closest key the
// other sets. A mistyped key (DISAGGSIM_TERMINL) is the usual cause;
// "arm x declares keys A, B but arm y declares A, C" left the reader to
// diff the lists, at the line of the arm that happened to come second,
// which was as often the right one.
func (v *validator) keysDiffer(name string, keys []string, first string, firstKeys []string) {
	onlyHere, onlyFirst := without(keys, firstKeys), without(firstKeys, keys)
	paired := map[string]bool{}
	for _, k := range onlyHere {
		if c := suggest.Closest(k, onlyFirst, max(1, len(k)/3)); c != "" {
			paired[c] = true
			v.atKey(p("arms", name, "env", k), "arm %q sets %s where arm %q sets %s (line %d): one of them is mistyped; every arm must set the same keys",
				name, k, first, c, keyLine(v.root, "arms", first, "env", c))
			continue
		}
		v.atKey(p("arms", name, "env", k), "arm %q sets %s, which arm %q does not: every arm must set the same keys", name, k, first)
	}
	for _, k := range onlyFirst {
		if !paired[k] {
			v.at(p("arms", name, "env"), "arm %q does not set %s, which arm %q sets (line %d): every arm must set the same keys",
				name, k, first, keyLine(v.root, "arms", first, "env", k))
		}
	}
}

// without is the keys of a (sorted) that b does not hold.
func without(a, b []string) []string {
	var out []string
	for _, k := range a {
		if !slices.Contains(b, k) {
			out = append(out, k)
		}
	}
	return out
}
