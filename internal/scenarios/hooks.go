package scenarios

import (
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// The hook lists of a scenario: setup and teardown run in every run's
// allocation, before its first role starts and after its last one
// stopped; before_all and after_all once per campaign on the host abbench
// run runs on, before its first run and after its last.
const (
	HookSetup     = "setup"
	HookTeardown  = "teardown"
	HookBeforeAll = "before_all"
	HookAfterAll  = "after_all"
)

// RunHooks are the hook lists of a run, in the order they run; evidence
// reads their output as the logs of a role of the list's name.
var RunHooks = []string{HookSetup, HookTeardown}

// Hook is one command of a hook list: an argument list like a role's
// command (each argument a template), written as the list itself or as
// {command: [...], arm_env: true}; with arm_env, a run's hook is given the
// arm's environment.
type Hook struct {
	Command []string `yaml:"command" json:"command"`
	ArmEnv  bool     `yaml:"arm_env" json:"arm_env"`
}

// UnmarshalYAML reads a hook: an argument list, or a mapping of command
// and arm_env (no other key).
func (h *Hook) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		return n.Decode(&h.Command)
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a hook is an argument list such as [sh, -c, 'sync'], or {command: [...], arm_env: true}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "command":
			err = v.Decode(&h.Command)
		case "arm_env":
			err = v.Decode(&h.ArmEnv)
		default:
			return fmt.Errorf("line %d: unknown key %q in a hook (allowed: command, arm_env)", k.Line, k.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Hooks is the hook list kind (one of the Hook constants).
func (s *Scenario) Hooks(kind string) []Hook {
	switch kind {
	case HookSetup:
		return s.Setup
	case HookTeardown:
		return s.Teardown
	case HookBeforeAll:
		return s.BeforeAll
	case HookAfterAll:
		return s.AfterAll
	}
	return nil
}

// HookRole is the role a hook list stands as for templates and evidence:
// named by the list, each hook one of its ranks (from 0).
func (s *Scenario) HookRole(kind string) *Role {
	return &Role{Name: kind, Ranks: len(s.Hooks(kind))}
}

// HookDeadline bounds each hook of list kind: the scenario's deadline of
// it (deadlines: setup_hook, teardown_hook, before_all, after_all), or the
// default.
func (s *Scenario) HookDeadline(kind string) time.Duration {
	for _, d := range s.Deadlines.hookFields() {
		if d.name == kind || d.name == kind+"_hook" {
			if *d.val > 0 {
				return time.Duration(*d.val)
			}
			return time.Duration(d.def)
		}
	}
	return 0
}

// HooksTime is the most the hooks of list kind take together.
func (s *Scenario) HooksTime(kind string) time.Duration {
	return time.Duration(len(s.Hooks(kind))) * (s.HookDeadline(kind) + time.Duration(s.Deadlines.KillGrace))
}

// hookFields are the deadlines of the hook lists, with their defaults:
// each applies only where its list has hooks, so a scenario without
// hooks keeps the matched digest it had before hooks existed.
func (d *Deadlines) hookFields() []deadline {
	return []deadline{
		{"setup_hook", &d.SetupHook, Duration(2 * time.Minute)},
		{"teardown_hook", &d.TeardownHook, Duration(time.Minute)},
		{HookBeforeAll, &d.BeforeAll, Duration(10 * time.Minute)},
		{HookAfterAll, &d.AfterAll, Duration(10 * time.Minute)},
	}
}

// hookLists are the hook lists by key, in the order of hookFields.
var hookLists = []string{HookSetup, HookTeardown, HookBeforeAll, HookAfterAll}

// applyHookDefaults gives each hook list that has hooks its deadline.
func applyHookDefaults(s *Scenario) {
	for i, d := range s.Deadlines.hookFields() {
		if *d.val == 0 && len(s.Hooks(hookLists[i])) > 0 {
			*d.val = d.def
		}
	}
}

// hooks checks every hook list: each hook a command of valid templates,
// arm_env only where there is an arm (a run's hooks), the deadlines in
// range, and no role named as a run's hook list (evidence reads the
// hooks' output by that name).
func (v *validator) hooks() {
	s := v.s
	for _, kind := range hookLists {
		for i, h := range s.Hooks(kind) {
			hp := p(kind, i)
			if len(h.Command) == 0 {
				v.at(hp, "%s hook %d has no command: give its argument list, such as [sh, -c, 'sync']", kind, i+1)
			}
			v.hookTemplates(kind, i, h)
			if h.ArmEnv && !slices.Contains(RunHooks, kind) {
				v.at(hp, "%s hook %d: arm_env is for a run's hooks (setup, teardown): %s runs once per campaign, outside every arm", kind, i+1, kind)
			}
		}
	}
	for i, d := range s.Deadlines.hookFields() {
		n := child(child(v.root, "deadlines"), d.name)
		if n == nil {
			continue
		}
		var val Duration
		_ = n.Decode(&val) // it decoded once already
		if val <= 0 || time.Duration(val) > MaxDeadline {
			v.at(p("deadlines", d.name), "deadline %s %s: must be above 0 and at most %s", d.name, val, MaxDeadline)
		} else if len(s.Hooks(hookLists[i])) == 0 {
			v.warn(p("deadlines", d.name), "deadline %s bounds each %s hook, and the scenario has none", d.name, hookLists[i])
		}
	}
	for i, r := range s.Roles {
		if slices.Contains(RunHooks, r.Name) {
			v.at(p("roles", i, "name"), "role name %q is taken: evidence rules read the %s hooks' output as role %s", r.Name, r.Name, r.Name)
		}
	}
}

// hookTemplates checks the templates of hook i of kind's list.
func (v *validator) hookTemplates(kind string, i int, h Hook) {
	args := p(kind, i) // the list itself, or its command
	if lookup(v.root, args...).Kind == yaml.MappingNode {
		args = append(args, "command")
	}
	for j, arg := range h.Command {
		if h.ArmEnv && slices.Contains(RunHooks, kind) {
			// A run's hook given the arm's environment is declared to
			// act by the arm: it may name it too.
			v.templateSyntax(append(slices.Clone(args), j), arg)
		} else {
			v.template(append(slices.Clone(args), j), arg)
		}
	}
}

// factSource checks the role a facts rule reads: a role, or a run's hook
// list that has hooks.
func (v *validator) factSource(path []any, name string) {
	if slices.Contains(RunHooks, name) {
		if len(v.s.Hooks(name)) == 0 {
			v.at(append(path, "role"), "role %q: the scenario has no %s hooks whose output this could read", name, name)
		}
		return
	}
	v.roleRef(path, name)
}
