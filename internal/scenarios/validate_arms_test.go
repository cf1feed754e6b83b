package scenarios

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// refusedAt loads base edited from -> to and wants an error containing
// want at line.
func refusedAt(t *testing.T, from, to string, line int, want string) {
	t.Helper()
	if !strings.Contains(base, from) {
		t.Fatalf("test edits %q, which the base lacks", from)
	}
	_, err := load(t, strings.Replace(base, from, to, 1))
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("got %v, want Errors", err)
	}
	for _, e := range es {
		if strings.Contains(e.Msg, want) {
			if e.Line != line {
				t.Fatalf("%q at line %d, want line %d", e.Msg, e.Line, line)
			}
			return
		}
	}
	t.Fatalf("no error contains %q: %v", want, err)
}

// A template whose value differs between the arms makes them differ by
// what no arm declares and no mode line proves: validate refuses it
// wherever it is, naming both expansions.
func TestArmDependentTemplatesAreRefused(t *testing.T) {
	const client = `command: [cli, --out, "{{.Out}}/t.json"]`
	for _, c := range []struct {
		name, from, to string
		line           int
		want           string
	}{
		{"arm in a client's command", client, `command: [cli, --duration, "{{if eq .Arm \"fast\"}}6{{else}}5{{end}}", --out, "{{.Out}}/t.json"]`, 9,
			`expands to "6" under arm "fast" but to "5" under arm "slow"`},
		{"arm name in an argument", client, `command: [cli, "--tag={{.Arm}}", --out, "{{.Out}}/t.json"]`, 9, `under arm "slow"`},
		{"arm key read with env in a role's env", "after_ready: true,", `after_ready: true, env: {M: '{{env "MODE"}}'},`, 9, `expands to "1" under arm "fast" but to "0" under arm "slow"`},
		{"arm key through a variable name", "after_ready: true,", `after_ready: true, env: {M: '{{env (printf "MO%s" "DE")}}'},`, 9, "under arm"},
		{"arm in a log file", `command: [srv, --rank, "{{.Rank}}"]}`, `log: "srv-{{.Arm}}-{{.Rank}}.log", command: [srv, --rank, "{{.Rank}}"]}`, 8, "under arm"},
		{"arm in a top-level env", "  - {requests: all}", "  - {requests: all}\nenv: {X: '{{.Arm}}'}", 15, "under arm"},
		{"arm in a hook without arm_env", "  - {requests: all}", "  - {requests: all}\nsetup:\n  - [sh, -c, 'echo {{.Arm}}']", 16, "under arm"},
		{"arm in before_all", "  - {requests: all}", "  - {requests: all}\nbefore_all:\n  - [sh, -c, 'echo {{.Arm}}']", 16, "under arm"},
	} {
		t.Run(c.name, func(t *testing.T) { refusedAt(t, c.from, c.to, c.line, c.want) })
	}
}

// What is alike in every arm stays allowed: the arm's build, another
// variable read with env, .Arm where it changes nothing, and a run's hook
// that takes the arm's environment (declared to act by the arm).
func TestArmIndependentTemplatesLoad(t *testing.T) {
	for _, edit := range [][2]string{
		{"after_ready: true,", `after_ready: true, env: {H: '{{env "HOME"}}'},`},
		{"after_ready: true,", `after_ready: true, env: {H: '{{if .Arm}}x{{end}}'},`},
		{"  - {requests: all}", "  - {requests: all}\nsetup:\n  - {command: [sh, -c, 'echo {{.Arm}} $MODE'], arm_env: true}"},
	} {
		if _, err := load(t, strings.Replace(base, edit[0], edit[1], 1)); err != nil {
			t.Errorf("%s: %v", edit[1], err)
		}
	}
}

// A role given the arm that no mode rule covers is refused where the
// scenario has mode rules: nothing would prove the arm reached it. A
// client may carry it as the system under test, when the mode rule is its
// own; a list of rules, one per role, covers several roles. Every role
// given the arm without evidence.mode is warned about. Before, a role
// other than a client that the single rule missed was only warned about.
func TestArmEnvWithoutAModeRuleIsRefused(t *testing.T) {
	refusedAt(t, "after_ready: true,", "after_ready: true, arm_env: true,", 9,
		`role "client" takes the arm's environment (arm_env: true), but the mode rule covers role "server" only`)

	const frontendRole = "  - {name: frontend, arm_env: true, command: [fe]}\n  - {name: client,"
	frontend := strings.Replace(base, "  - {name: client,", frontendRole, 1)
	_, err := load(t, frontend)
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es[0].Line != 9 ||
		!strings.Contains(es[0].Msg, `role "frontend" takes the arm's environment (arm_env: true), but the mode rule covers role "server" only`) ||
		!strings.Contains(es[0].Msg, "add a rule of this role to evidence.mode") {
		t.Errorf("a frontend no mode rule covers: %v, want one error at line 9 saying nothing proves the arm reached it", err)
	}

	single := strings.NewReplacer(
		"  - {name: server, ranks: 2, arm_env: true, command: [srv, --rank, \"{{.Rank}}\"]}\n", "",
		"after_ready: true,", "arm_env: true,",
		"role: server,", "role: client,",
	).Replace(base)
	if _, err := load(t, single); err != nil {
		t.Errorf("a client that is the system under test, proving its own mode: %v", err)
	}

	noMode := strings.Replace(base, "  mode: {role: server, pattern: 'mode rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n", "", 1)
	s, err := load(t, noMode)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 8 || !strings.Contains(s.Warnings[0].Msg, "has no evidence.mode: nothing proves the arm reached it") {
		t.Errorf("warnings %v, want one at line 8 saying nothing proves the arm", s.Warnings)
	}
}

// evidence.mode as a list gives each role given the arm its own rule: a
// scenario whose rules cover every such role loads, with every rule in
// order; each rule is checked as a single one is (its errors at its own
// item's line), a role may have one rule only, and an item is a mapping
// of the rule's keys alone.
func TestModeRulesAList(t *testing.T) {
	const one = "  mode: {role: server, pattern: 'mode rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n"
	const frontendRole = "  - {name: frontend, arm_env: true, command: [fe]}\n  - {name: client,"
	list := func(second string) string {
		return strings.Replace(strings.Replace(base, "  - {name: client,", frontendRole, 1), one,
			"  mode:\n    - {role: server, pattern: 'mode rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n"+second, 1)
	}
	s, err := load(t, list("    - {role: frontend, pattern: 'fe rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n"))
	if err != nil {
		t.Fatalf("a rule per role given the arm: %v", err)
	}
	if got := s.Evidence.Mode.Roles(); len(got) != 2 || got[0] != "server" || got[1] != "frontend" || len(s.Warnings) != 0 {
		t.Errorf("rules of %v, warnings %v; want server then frontend, no warning", got, s.Warnings)
	}
	if r := s.RulesFor("frontend"); len(r) != 1 || r[0].Name != "mode" || r[0].Pattern != `fe rank=(?P<rank>\d+) mode=(?P<MODE>\d)` {
		t.Errorf("the frontend's log rules: %+v, want its mode rule", r)
	}
	for _, c := range []struct {
		second string
		line   int
		want   string
	}{
		{"    - {role: frontend, pattern: 'fe rank=(?P<rank>\\d+) mode=(?P<OTHER>\\d)'}\n", 14, `mode group "OTHER" is not an arm key`},
		{"    - {role: client, pattern: 'c rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n", 14, `mode role "client" does not take the arm env`},
		{"    - {role: server, pattern: 'again rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n", 14, `role "server" has a mode rule already (evidence.mode item 1)`},
		{"    - {role: frontend, pattern: 'fe rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)', records: r.jsonl}\n", 14, "records is only for evidence.activation"},
	} {
		_, err := load(t, list(c.second))
		var es Errors
		if !errors.As(err, &es) {
			t.Errorf("%s: got %v, want Errors", c.second, err)
			continue
		}
		found := false
		for _, e := range es {
			found = found || (strings.Contains(e.Msg, c.want) && e.Line == c.line)
		}
		if !found {
			t.Errorf("%s: %v, want %q at line %d", c.second, err, c.want, c.line)
		}
	}
	if _, err := load(t, list("    - {role: frontend, patern: 'fe rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)'}\n")); err == nil || !strings.Contains(err.Error(), `unknown key "patern" in a mode rule`) {
		t.Errorf("a misspelt key: %v, want it refused", err)
	}
}

// One rule is written as the rule itself, as evidence.mode always was, so
// the matched digest of a scenario written before the list form is
// unchanged; a list is written as a list and read back.
func TestModeRulesEncoding(t *testing.T) {
	one := ModeRules{{Role: "server", Pattern: `a<b&(?P<MODE>\d)`}}
	b, err := json.Marshal(struct{ Mode ModeRules }{one})
	if err != nil {
		t.Fatal(err)
	}
	was, _ := json.Marshal(struct{ Mode *Rule }{&one[0]})
	if string(b) != string(was) {
		t.Errorf("one rule: %s, want %s", b, was)
	}
	s, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s.Canonical()), `"mode":{"pattern":"mode rank=(?P<rank>\\d+) mode=(?P<MODE>\\d)","role":"server"}`) {
		t.Errorf("the canonical scenario writes its one mode rule otherwise:\n%s", s.Canonical())
	}
	two := ModeRules{{Role: "a", Pattern: "x"}, {Role: "b", Pattern: "y"}}
	for _, m := range []ModeRules{nil, one, two} {
		b, err := json.Marshal(m)
		var back ModeRules
		if err == nil {
			err = json.Unmarshal(b, &back)
		}
		if err != nil || len(back) != len(m) || (len(m) > 0 && back[len(m)-1] != m[len(m)-1]) {
			t.Errorf("%v: wrote %s, read back %v (%v)", m, b, back, err)
		}
	}
}

// {record: valid} on a format whose tool never says a run is valid could
// never hold: every run would be censored. validate refuses it.
func TestRecordValidNeedsAToolThatSaysValid(t *testing.T) {
	for _, format := range []string{"vllm", "fio", "sysbench"} {
		t.Run(format, func(t *testing.T) {
			refusedAt(t, "format: vllm}\nacceptance:\n  - {requests: all}", "format: "+format+"}\nacceptance:\n  - {record: valid}", 14,
				`{record: valid}: the `+format+` tool never says a run is valid`)
		})
	}
	if _, err := load(t, strings.Replace(base, "format: vllm}\nacceptance:\n  - {requests: all}", "format: mlperf}\nacceptance:\n  - {record: valid}", 1)); err != nil {
		t.Errorf("{record: valid} of an mlperf record: %v", err)
	}
}

// An arm key that differs between the arms but that no mode pattern
// names is warned about at its line in the first arm: the ranks get it,
// but nothing shows the system took it (a name it never reads would run
// one mode in every arm). A key every arm sets alike, or one the
// pattern names, is not.
func TestADifferingKeyNoModeNamesIsWarnedAbout(t *testing.T) {
	unread := strings.NewReplacer(`{MODE: "1", PEER: "1"}`, `{MODE: "1", PEER: "1", FAST: "1"}`,
		`{MODE: "0", PEER: "1"}`, `{MODE: "0", PEER: "1", FAST: "0"}`).Replace(base)
	s, err := load(t, unread)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 3 || !strings.Contains(s.Warnings[0].Msg, "arm key FAST differs between the arms, but no mode pattern has a group (?P<FAST>...)") {
		t.Errorf("warnings %v, want one at line 3 naming FAST", s.Warnings)
	}
	named := strings.Replace(unread, `mode=(?P<MODE>\d)'`, `mode=(?P<MODE>\d) fast=(?P<FAST>\d)'`, 1)
	if named == unread {
		t.Fatal("the test's pattern edit matched nothing")
	}
	if s, err = load(t, named); err != nil || len(s.Warnings) != 0 {
		t.Errorf("a key the mode pattern names: %v, warnings %v", err, s.Warnings)
	}
	if s, err = load(t, base); err != nil || len(s.Warnings) != 0 {
		t.Errorf("PEER, set alike in every arm: %v, warnings %v", err, s.Warnings)
	}
}

// A scenario with mode rules and no arms is refused, not a panic: the
// check of what differs between the arms has no first arm to point at.
func TestModeRulesWithoutArmsAreRefused(t *testing.T) {
	noArms := strings.Replace(base, "  fast: {env: {MODE: \"1\", PEER: \"1\"}}\n  slow: {env: {MODE: \"0\", PEER: \"1\"}}\n", "  {}\n", 1)
	if noArms == base {
		t.Fatal("the test's edit matched nothing")
	}
	if _, err := load(t, noArms); err == nil || !strings.Contains(err.Error(), "arm") {
		t.Errorf("no arms: %v", err)
	}
}
