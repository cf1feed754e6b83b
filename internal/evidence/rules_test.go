package evidence

import (
	"fmt"
	"strings"
	"testing"
)

// TestSharedRulesDeriveEachRunWithItsOwnPatterns: runs of two scenarios
// that differ in one rule's pattern, derived at once with one Rules (as a
// verifier of many bundles does), each derive with their own scenario's
// pattern: a run whose logs match only the other scenario's mode pattern
// is not accepted. Each distinct pattern is compiled once. Under -race
// the shared rules are read by concurrent derivations.
func TestSharedRulesDeriveEachRunWithItsOwnPatterns(t *testing.T) {
	rules := NewRules()
	other := strings.Replace(scenarioYAML, "terminal=(?P<TERM_MODE>", "term=(?P<TERM_MODE>", 1)
	if other == scenarioYAML {
		t.Fatal("the scenario has no mode pattern to change")
	}
	respelled := func(r *run) {
		for name, log := range r.logs {
			r.logs[name] = strings.ReplaceAll(log, "terminal=", "term=")
		}
	}
	t.Run("runs", func(t *testing.T) {
		for i := range 12 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				r := goodRun()
				r.rules = rules
				changed, spelledForIt := i%3 != 0, i%3 == 1
				if changed {
					r.yaml = other
				}
				if spelledForIt {
					respelled(r)
				}
				e := r.collect(t)
				if want := !changed || spelledForIt; e.Accepted != want {
					t.Errorf("changed pattern %v, logs spelled for it %v: accepted %v, want %v (%v)", changed, spelledForIt, e.Accepted, want, e.Reasons)
				}
			})
		}
	})
	if n := len(rules.compiled); n != 5 {
		t.Errorf("%d patterns compiled, want the 5 distinct ones of the two scenarios", n)
	}
}
