package scenarios

import (
	"strings"
	"text/template"
)

// armTemplate refuses a template that expands otherwise under one arm
// than under another ({{.Arm}}, an arm key read with env, a branch on
// either): the arms would then differ by a value no arm declares and no
// mode line proves. It expands text under each arm with every other value
// alike, each arm's name for .Arm and each arm's values for what env reads
// of an arm key; .Build, which the arms declare, is held alike.
func (v *validator) armTemplate(path []any, text string) {
	if !strings.Contains(text, "{{") {
		return
	}
	var first, firstOut string
	for _, arm := range v.s.ArmOrder {
		out, err := v.s.expandAsArm(text, arm)
		if err != nil {
			v.at(path, "template %q under arm %q: %v", text, arm, err)
			return
		}
		if first == "" {
			first, firstOut = arm, out
			continue
		}
		if out != firstOut {
			v.at(path, "template %q expands to %q under arm %q but to %q under arm %q: the arms would differ by a value they do not declare, which no mode line proves; "+
				"declare what differs as an arm key (arms: NAME: env: {KEY: value}) and give it to the role it concerns with arm_env: true, whose mode line proves it",
				text, firstOut, first, out, arm)
			return
		}
	}
}

// expandAsArm expands text over the validation sample as arm would see it:
// .Arm its name, env "KEY" its value of an arm key, and any other env
// "NAME" a value of its name alone, so that only the arm can make two
// expansions differ.
func (s *Scenario) expandAsArm(text, arm string) (string, error) {
	t, err := Template(text)
	if err != nil {
		return "", err
	}
	env := s.Arms[arm].Env
	t.Funcs(template.FuncMap{"env": func(name string) string {
		if val, ok := env[name]; ok {
			return val
		}
		return "${" + name + "}"
	}})
	d := s.sampleData()
	d.Arm = arm
	var b strings.Builder
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// armEnvCovered refuses a client that takes the arm's environment which
// the mode rule does not cover: the measurement itself would differ by the
// arm, and nothing proves how. A client may take it only as the system
// under test (a single-process benchmark), and then its own mode line,
// evidence.mode's rule, proves it. Another role the rule does not cover
// is warned about: the arm belongs on the roles it concerns, and one mode
// rule proves one role of a system the arm may reach in several. So is
// every role given the arm in a scenario without evidence.mode ({mode:
// all-ranks} is refused there on its own).
func (v *validator) armEnvCovered() {
	if len(v.s.ArmKeys()) == 0 {
		return // arms of builds alone: arm_env gives nothing
	}
	modeRole := ""
	if m := v.s.Evidence.Mode; m != nil {
		modeRole = m.Role
	}
	for i, r := range v.s.Roles {
		if !r.ArmEnv || r.Name == modeRole || r.OpenAI != nil {
			continue // an openai client's arm_env is refused on its own
		}
		path := p("roles", i, "arm_env")
		fix := "give the arm only to the roles it concerns (leave arm_env out here)"
		if r.Client {
			fix += ", or, where the client is itself the system under test (a single-process benchmark), make it evidence.mode's role so its own mode line proves the arm"
		} else {
			fix += ", or make it evidence.mode's role so its mode line proves the arm"
		}
		switch {
		case modeRole == "":
			v.warn(path, "role %q takes the arm's environment (arm_env: true), but the scenario has no evidence.mode: nothing proves the arm reached it; %s", r.Name, fix)
		case r.Client:
			v.at(path, "role %q takes the arm's environment (arm_env: true), but the mode rule covers role %q only: nothing proves the arm reached %q; %s", r.Name, modeRole, r.Name, fix)
		default:
			v.warn(path, "role %q takes the arm's environment (arm_env: true), but the mode rule covers role %q only: nothing proves the arm reached %q; %s", r.Name, modeRole, r.Name, fix)
		}
	}
}
