package scenarios

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// userPattern is a POSIX-portable user name, as useradd accepts it.
var userPattern = lazyregexp.New(`^[a-z_][a-z0-9_-]{0,31}$`)

func (v *validator) roles() {
	s := v.s
	if len(s.Roles) == 0 {
		v.at(p("roles"), "no roles: list the processes of the system under test")
	}
	seen := map[string]bool{}
	clients := 0
	for i := range s.Roles {
		r := &s.Roles[i]
		rp := p("roles", i)
		switch {
		case r.Name == "":
			v.at(rp, "role %d has no name", i+1)
		case !namePattern.MatchString(r.Name):
			v.at(append(rp, "name"), "role name %q: use lower-case letters, digits, '-' and '_'", r.Name)
		case seen[r.Name]:
			v.at(append(rp, "name"), "duplicate role name %q", r.Name)
		}
		seen[r.Name] = true
		v.role(rp, r)
		if r.Client {
			clients++
			if clients > 1 {
				v.at(append(rp, "client"), "role %q is a second client: one role's exit ends the measured phase", r.Name)
			}
		}
	}
	v.after(seen)
	if cycle := v.afterCycle(); cycle != "" {
		v.atKey(p("roles"), "roles wait on each other in a cycle: %s", cycle)
	}
}

// role checks one role at rp: its ranks, command, user, log, env and
// ready probe.
func (v *validator) role(rp []any, r *Role) {
	if r.Ranks < 0 || r.Ranks > MaxRanks {
		v.at(append(rp, "ranks"), "role %q: ranks %d: must be between 1 and %d", r.Name, r.Ranks, MaxRanks)
	}
	if r.OpenAI != nil {
		v.openAI(rp, r)
	} else if len(r.Command) == 0 {
		v.at(rp, "role %q has no command: give the argument list to start one rank (or openai: for abbench's own client)", r.Name)
	}
	if r.User != "" && !userPattern.MatchString(r.User) {
		v.at(append(rp, "user"), "role %q: user %q is not a user name (lower-case letters, digits, '_' and '-', at most 32)", r.Name, r.User)
	}
	for j, arg := range r.Command {
		v.template(append(rp, "command", j), arg)
	}
	// A log the file left out is the default, which is valid whenever
	// the role's name is (a name that is not is reported on its own).
	if r.Log != r.defaultLog() {
		v.template(append(rp, "log"), r.Log)
		if strings.Contains(r.Log, "..") || filepath.IsAbs(r.Log) {
			v.at(append(rp, "log"), "log %q must stay inside the run directory", r.Log)
		}
	}
	v.env(append(rp, "env"), r.Env, true)
	if r.Ready != nil {
		v.ready(append(rp, "ready"), r.Name, r.Ready)
	}
	if r.Container != nil {
		v.container(append(rp, "container"), r)
	}
	if r.Kubernetes != nil {
		v.kubernetesRole(append(rp, "kubernetes"), r)
	}
}

// ready checks a role's ready probe: a log pattern or a port, one of them.
func (v *validator) ready(path []any, role string, probe *Probe) {
	switch {
	case probe.Log == "" && probe.Port == "":
		v.at(path, "ready probe of role %q: give log (a pattern) or port", role)
	case probe.Log != "" && probe.Port != "":
		v.at(path, "ready probe of role %q: give log or port, not both", role)
	case probe.Log != "":
		v.regexp(append(path, "log"), probe.Log)
	default:
		v.template(append(path, "port"), probe.Port)
	}
}

// after checks that every role a role starts after is another role.
func (v *validator) after(roles map[string]bool) {
	for i, r := range v.s.Roles {
		for j, a := range r.After {
			if a == r.Name {
				v.at(p("roles", i, "after", j), "role %q cannot start after itself", r.Name)
			} else if !roles[a] {
				v.at(p("roles", i, "after", j), "role %q starts after %q, which is not a role", r.Name, a)
			}
		}
	}
}

// afterCycle finds a cycle in the start order, including after_ready edges.
func (v *validator) afterCycle() string {
	deps := map[string][]string{}
	for _, r := range v.s.Roles {
		deps[r.Name] = append(deps[r.Name], r.After...)
		if r.AfterReady {
			for _, o := range v.s.Roles {
				if !o.AfterReady {
					deps[r.Name] = append(deps[r.Name], o.Name)
				}
			}
		}
	}
	state := map[string]int{}
	var stack []string
	var visit func(string) string
	visit = func(n string) string {
		switch state[n] {
		case 1:
			i := slices.Index(stack, n)
			return strings.Join(append(stack[i:], n), " -> ")
		case 2:
			return ""
		}
		state[n] = 1
		stack = append(stack, n)
		for _, d := range deps[n] {
			if _, ok := deps[d]; !ok || d == n {
				continue // unknown roles and self-waits are reported on their own
			}
			if c := visit(d); c != "" {
				return c
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		return ""
	}
	for _, r := range v.s.Roles {
		if c := visit(r.Name); c != "" {
			return c
		}
	}
	return ""
}
