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
