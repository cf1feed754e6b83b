package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// modes checks every rule of evidence.mode, and that no role has two: a
// rank's mode lines are held to one pattern.
func (v *validator) modes(rules ModeRules) {
	first := map[string]int{}
	for i := range rules {
		v.mode(v.modePath(i), &rules[i])
		role := rules[i].Role
		if j, twice := first[role]; twice && role != "" {
			v.at(append(v.modePath(i), "role"), "role %q has a mode rule already (evidence.mode item %d): give each role one rule, its pattern matching every mode line the role logs", role, j+1)
			continue
		}
		first[role] = i
	}
}

// modePath is the path of evidence.mode's rule i: the rule itself where
// the scenario gives one, its item where it gives a list.
func (v *validator) modePath(i int) []any {
	if lookup(v.root, "evidence", "mode").Kind == yaml.SequenceNode {
		return p("evidence", "mode", i)
	}
	return p("evidence", "mode")
}

// armEnvCovered refuses a role that takes the arm's environment which no
// mode rule covers, where the scenario has mode rules: nothing would prove
// the arm reached that role, though the scenario proves it elsewhere, and
// evidence.mode takes a rule per role. A client may take the arm only as
// the system under test (a single-process benchmark), and then its own
// mode line proves it. A scenario without evidence.mode is warned about
// each such role instead ({mode: all-ranks} is refused there on its own):
// many scenarios give the arm to roles they prove nothing of, and
// refusing them all is a change of its own.
func (v *validator) armEnvCovered() {
	if len(v.s.ArmKeys()) == 0 {
		return // arms of builds alone: arm_env gives nothing
	}
	rules := v.s.Evidence.Mode
	for i, r := range v.s.Roles {
		if !r.ArmEnv || rules.Of(r.Name) != nil || r.OpenAI != nil {
			continue // an openai client's arm_env is refused on its own
		}
		path := p("roles", i, "arm_env")
		fix := "give the arm only to the roles it concerns (leave arm_env out here)"
		if r.Client {
			fix += ", or, where the client is itself the system under test (a single-process benchmark), make it evidence.mode's role so its own mode line proves the arm"
		} else {
			fix += ", or add a rule of this role to evidence.mode (a list of rules, one per role) so its ranks' mode lines prove the arm"
		}
		if len(rules) == 0 {
			v.warn(path, "role %q takes the arm's environment (arm_env: true), but the scenario has no evidence.mode: nothing proves the arm reached it; %s", r.Name, fix)
			continue
		}
		v.at(path, "role %q takes the arm's environment (arm_env: true), but %s: nothing proves the arm reached %q; %s", r.Name, coveredRoles(rules), r.Name, fix)
	}
}

// coveredRoles says which roles the mode rules cover.
func coveredRoles(rules ModeRules) string {
	if len(rules) == 1 {
		return fmt.Sprintf("the mode rule covers role %q only", rules[0].Role)
	}
	var quoted []string
	for _, role := range rules.Roles() {
		if q := fmt.Sprintf("%q", role); !slices.Contains(quoted, q) {
			quoted = append(quoted, q)
		}
	}
	return "the mode rules cover roles " + strings.Join(quoted, ", ") + " only"
}
