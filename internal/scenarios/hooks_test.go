package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// A hook is an argument list or a mapping with arm_env; each list's
// deadline is its own and defaults only where the list has hooks, so a
// scenario without hooks keeps its matched digest, and one with hooks
// has another.
func TestHooksLoad(t *testing.T) {
	s, err := load(t, base+`setup:
  - [sh, -c, 'echo clocks locked=1400']
  - {command: [sh, -c, 'echo "mode=$MODE"'], arm_env: true}
teardown:
  - {command: [sh, -c, 'echo "{{.Arm}} {{.Role}} {{.Rank}}"'], arm_env: true}
before_all:
  - [true]
deadlines: {setup_hook: 30s}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Setup) != 2 || s.Setup[0].ArmEnv || !s.Setup[1].ArmEnv || !slices.Equal(s.Setup[1].Command, []string{"sh", "-c", `echo "mode=$MODE"`}) {
		t.Errorf("setup hooks: %+v", s.Setup)
	}
	for kind, want := range map[string]time.Duration{HookSetup: 30 * time.Second, HookTeardown: time.Minute, HookBeforeAll: 10 * time.Minute, HookAfterAll: 10 * time.Minute} {
		if got := s.HookDeadline(kind); got != want {
			t.Errorf("%s hooks' deadline %s, want %s", kind, got, want)
		}
	}
	if s.Deadlines.AfterAll != 0 {
		t.Errorf("after_all has no hooks, yet its deadline was set: %s", s.Deadlines.AfterAll)
	}
	if r := s.HookRole(HookSetup); r.Name != "setup" || r.Ranks != 2 {
		t.Errorf("the setup hooks as a role: %+v", r)
	}
	plain, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Deadlines.SetupHook != 0 || plain.Deadlines.TeardownHook != 0 {
		t.Errorf("a scenario without hooks got hook deadlines: %+v", plain.Deadlines)
	}
	if strings.Contains(string(plain.Canonical()), "hook") || strings.Contains(string(plain.Canonical()), "setup") {
		t.Errorf("the canonical encoding of a scenario without hooks names them: %s", plain.Canonical())
	}
	if s.MatchedDigest() == plain.MatchedDigest() {
		t.Error("hooks left the matched digest as it was")
	}
}

func TestHooksRejected(t *testing.T) {
	for _, c := range []struct {
		name, add string
		line      int
		want      string
	}{
		{"unknown key", "setup:\n  - {command: [x], user: root}\n", 16, `unknown key "user" in a hook (allowed: command, arm_env)`},
		{"not a list", "setup:\n  - sync\n", 16, "a hook is an argument list"},
		{"no command", "teardown:\n  - {arm_env: true}\n", 16, "teardown hook 1 has no command"},
		{"template", "setup:\n  - [echo, '{{.Nope}}']\n", 16, `template "{{.Nope}}"`},
		{"template in a mapping", "setup:\n  - {command: [echo, '{{.Nope}}']}\n", 16, `template "{{.Nope}}"`},
		{"arm_env per campaign", "after_all:\n  - {command: [x], arm_env: true}\n", 16, "arm_env is for a run's hooks"},
		{"deadline", "setup:\n  - [x]\ndeadlines: {setup_hook: 0s}\n", 17, "deadline setup_hook 0s: must be above 0"},
		{"facts of no hooks", "", 0, `role "setup": the scenario has no setup hooks`},
	} {
		y := base + c.add
		if c.name == "facts of no hooks" {
			y = strings.Replace(base, "  throughput:", "  facts: {clocks: {role: setup, pattern: 'locked=(?P<mhz>\\d+)'}}\n  throughput:", 1)
		}
		_, err := load(t, y)
		var es Errors
		if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
			continue
		}
		for _, e := range es {
			if strings.Contains(e.Msg, c.want) && c.line != 0 && e.Line != c.line {
				t.Errorf("%s: %q at line %d, want %d", c.name, e.Msg, e.Line, c.line)
			}
		}
	}
	_, err := load(t, strings.Replace(base, "{name: server,", "{name: setup,", 1))
	if err == nil || !strings.Contains(err.Error(), `role name "setup" is taken`) {
		t.Errorf("a role named setup: %v", err)
	}
	s, err := load(t, strings.Replace(base, "  throughput:", "  facts: {clocks: {role: setup, pattern: 'locked=(?P<mhz>\\d+)'}}\n  throughput:", 1)+"setup:\n  - [x]\n")
	if err != nil {
		t.Fatalf("a facts rule reading the setup hooks: %v", err)
	}
	if r := s.RulesFor(HookSetup); len(r) != 1 || r[0].Name != "fact:clocks" {
		t.Errorf("rules for the setup hooks: %+v", r)
	}
}
