package compare

import (
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/reason"
)

// modeUnread adds the cause behind the arm-mode-mismatches of an arm key
// that every rank of two or more arms logs at one value, though the arms
// set it differently: the system never took the arm's value (a misspelt
// key, a variable it does not read), so every run ran one mode. Each
// rank's own mismatch names a rank and an arm; a newcomer who had
// mistyped the key read a dozen of them and no word of why. It comes
// before them, as their root.
func (g *gate) modeUnread() {
	set := map[string]map[string]bool{}    // key: the values the arms set
	logged := map[string]map[string]bool{} // key: the values the ranks logged
	armsLogging := map[string]map[string]bool{}
	present := map[string]bool{}
	for _, run := range g.runs {
		e := run.Evidence
		present[e.Arm] = true
		for k, v := range e.ArmEnv {
			addTo(set, k, v)
		}
		for _, f := range e.Ranks {
			for k, v := range f.Mode {
				addTo(logged, k, v)
				addTo(armsLogging, k, e.Arm)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		// Every arm given logs it: an arm whose ranks logged nothing (a run
		// that failed before its mode line) leaves "every arm" unproven.
		if len(set[k]) < 2 || len(logged[k]) != 1 || len(armsLogging[k]) != len(present) {
			continue
		}
		v := slices.Collect(maps.Keys(logged[k]))[0]
		g.add(reason.New(reason.ArmModeMismatch, "every rank of every arm logs %s=%s, though the arms set %s: the system never took %s from the arm's environment (a misspelt name, or one it does not read?), so every run ran one mode",
			k, v, strings.Join(slices.Sorted(maps.Keys(set[k])), " and "), k))
	}
}

func addTo(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}
