package scenarios

import (
	"fmt"
	"regexp"
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

// differingKeysProven warns of each arm key whose value differs between
// the arms that no mode pattern (nor an attached server's probe) has a
// group for. A rank's registration proves the arm's environment reached
// it, but only a mode line shows the system took the key: a key the
// system never reads (a misspelt or unknown name) would let every arm
// run one mode, and the comparison say "no change" of a change never
// made. A warning, not a refusal: some keys only a system's own output
// can show (a path, a library switch), and a scenario without
// evidence.mode is warned about each role by armEnvCovered already.
func (v *validator) differingKeysProven() {
	if len(v.s.Evidence.Mode) == 0 && len(v.s.Attach) == 0 || len(v.s.ArmOrder) == 0 {
		return // no arms is refused on its own
	}
	named := map[string]bool{}
	patterns := make([]string, 0, len(v.s.Evidence.Mode)+len(v.s.Attach))
	for _, r := range v.s.Evidence.Mode {
		patterns = append(patterns, r.Pattern)
	}
	for _, a := range v.s.Attach {
		if a.Probe != nil {
			patterns = append(patterns, a.Probe.Pattern)
		}
	}
	for _, pat := range patterns {
		if re, err := regexp.Compile(pat); err == nil { // an invalid one is refused on its own
			for _, g := range re.SubexpNames() {
				named[g] = true
			}
		}
	}
	differing, _ := v.s.ArmDiff()
	first := v.s.ArmOrder[0]
	for _, k := range differing {
		if !named[k] {
			v.warn(p("arms", first, "env", k), "arm key %s differs between the arms, but no mode pattern has a group (?P<%s>...) for it: nothing will show the system took it, and a name it never reads runs one mode in every arm; name it in evidence.mode's pattern where the system logs it (an A/A label the system ignores on purpose is the one key to leave so)", k, k)
		}
	}
}
