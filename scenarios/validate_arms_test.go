package scenarios

import (
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

// A client given the arm that the mode rule does not cover is refused:
// the measurement would differ by the arm, and nothing proves how. A
// client may carry it as the system under test, when the mode rule is its
// own. Another role the rule does not cover, and every role given the arm
// without evidence.mode, is warned about.
func TestArmEnvWithoutAModeRuleIsRefused(t *testing.T) {
	refusedAt(t, "after_ready: true,", "after_ready: true, arm_env: true,", 9,
		`role "client" takes the arm's environment (arm_env: true), but the mode rule covers role "server" only`)

	frontend := strings.Replace(base, "  - {name: client,", "  - {name: frontend, arm_env: true, command: [fe]}\n  - {name: client,", 1)
	s, err := load(t, frontend)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 9 || !strings.Contains(s.Warnings[0].Msg, `role "frontend" takes the arm's environment (arm_env: true), but the mode rule covers role "server" only`) {
		t.Errorf("warnings %v, want one at line 9 saying nothing proves the arm reached the frontend", s.Warnings)
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
	s, err = load(t, noMode)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 8 || !strings.Contains(s.Warnings[0].Msg, "has no evidence.mode: nothing proves the arm reached it") {
		t.Errorf("warnings %v, want one at line 8 saying nothing proves the arm", s.Warnings)
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
