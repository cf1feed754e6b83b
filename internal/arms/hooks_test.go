package arms

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

const hookScenario = `name: hooks
arms:
  on: {env: {MODE: "1"}}
  off: {env: {MODE: "0"}}
baseline: off
workload: {prompts: prompts.jsonl}
setup:
  - [sh, -c, 'echo "clocks locked=1400 rank={{.Rank}} mode=${MODE:-none}"']
  - {command: [sh, -c, 'echo "mode=$MODE"; SETUP'], arm_env: true}
teardown:
  - {command: [sh, -c, 'echo "{{.Arm}} server-was-$(cat "{{.Out}}/server" 2>/dev/null)" >> "{{.Dir}}/teardown.txt"'], arm_env: true}
  - [sh, -c, 'TEARDOWN']
roles:
  - {name: server, arm_env: true, command: [sh, -c, 'echo up > "{{.Out}}/server"; echo up; exec sleep 60'], ready: {log: up}}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'CLIENT']}
deadlines: {ready: 10s, client: 30s, teardown: 5s, kill_grace: 1s, setup_hook: 2s, teardown_hook: 5s}
`

// hookRun runs arm on of hookScenario with its setup hook 2, teardown
// hook 2 and client given, and returns its status and what the first
// teardown hook wrote ("" when it never ran).
func hookRun(t *testing.T, ctx context.Context, setup, teardown, client string) (*rundir.Status, string) {
	t.Helper()
	s := loadScenario(t, strings.NewReplacer("SETUP", setup, "TEARDOWN", teardown, "CLIENT", client).Replace(hookScenario))
	st := runArm(t, ctx, s, "on")
	wrote, _ := os.ReadFile(filepath.Join(s.Dir, "teardown.txt"))
	return st, string(wrote)
}

func phaseIndex(st *rundir.Status, name string) int {
	return slices.IndexFunc(st.Phases, func(p rundir.PhaseTime) bool { return p.Name == name })
}

// The setup hooks run before any role, each with its templates and the
// arm's environment only where arm_env says so, their output in the
// attempt's hooks/ and each recorded in the status; the teardown hooks
// run after every rank stopped.
func TestHooksRunAroundTheRoles(t *testing.T) {
	st, teardown := hookRun(t, context.Background(), "exit 0", "exit 0", "exit 0")
	if st.State != rundir.StateSucceeded {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	first, _ := os.ReadFile(filepath.Join(st.Dir, rundir.HookLog("setup", 0)))
	second, _ := os.ReadFile(filepath.Join(st.Dir, rundir.HookLog("setup", 1)))
	if string(first) != "clocks locked=1400 rank=0 mode=none\n" || string(second) != "mode=1\n" {
		t.Errorf("setup output %q and %q: want the templates expanded, and MODE only with arm_env", first, second)
	}
	if len(st.Hooks) != 4 || st.Hooks[0].Kind != "setup" || st.Hooks[3].Kind != "teardown" || st.Hooks[3].Index != 1 || st.Hooks[1].ExitCode != 0 {
		t.Errorf("hooks in the status: %+v", st.Hooks)
	}
	if i := phaseIndex(st, "setup"); i < 0 || phaseIndex(st, "start") != i+1 {
		t.Errorf("phases %+v: want setup right before start", st.Phases)
	}
	if teardown != "on server-was-up\n" {
		t.Errorf("the teardown hook wrote %q, want it to run once, after the server", teardown)
	}
}

// A setup hook that fails censors the run with its own reason, the root
// cause, naming the hook and its last output line: no role starts, no
// setup hook after it runs, and the teardown hooks still run.
func TestFailingSetupHookCensorsBeforeAnyRole(t *testing.T) {
	st, teardown := hookRun(t, context.Background(), "exit 3", "exit 0", "exit 0")
	if st.State != rundir.StateFailed || len(st.Reasons) == 0 {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	root := reason.Group(st.Reasons)[0]
	if root.Code != reason.SetupFailed || root.Role != "setup" || root.Rank == nil || *root.Rank != 1 ||
		!strings.Contains(root.Detail, `setup hook 2 (sh -c echo "mode=$MODE"; exit 3) exited with status 3; last line of its output: "mode=1"`) {
		t.Errorf("root cause %+v", root)
	}
	if len(st.Ranks) != 0 || phaseIndex(st, "start") >= 0 {
		t.Errorf("a role started after a failed setup: ranks %+v, phases %+v", st.Ranks, st.Phases)
	}
	// Its schema says a status lists its ranks, none here: [], never null.
	if data, _ := os.ReadFile(filepath.Join(st.Dir, rundir.StatusFile)); !strings.Contains(string(data), `"ranks": []`) {
		t.Errorf("status.json of a run that started no rank: %s", data)
	}
	if teardown != "on server-was-\n" {
		t.Errorf("the teardown hook wrote %q, want it run once with no server", teardown)
	}
}

// A teardown hook that fails censors the run (teardown-failed); one past
// its deadline, a setup hook, is stopped and censors the run.
func TestFailingHooksCensor(t *testing.T) {
	st, _ := hookRun(t, context.Background(), "exit 0", "exit 2", "exit 0")
	if st.State != rundir.StateFailed || codes(st) != string(reason.TeardownFailed) || !strings.Contains(st.Reasons[0].Detail, "teardown hook 2 (sh -c exit 2) exited with status 2") {
		t.Errorf("a failing teardown hook: state %s, %v", st.State, st.Reasons)
	}
	skipShort(t)
	start := time.Now()
	st, _ = hookRun(t, context.Background(), "sleep 30", "exit 0", "exit 0")
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a setup hook past its 2s deadline held the run %s", took)
	}
	if codes(st) != string(reason.SetupFailed) || !strings.Contains(st.Reasons[0].Detail, "did not end within its deadline 2s and was stopped") {
		t.Errorf("a setup hook past its deadline: %v", st.Reasons)
	}
}

// The teardown hooks run after the controller is told to stop (its
// context ends, as on SIGTERM) in the middle of the client.
func TestTeardownHooksRunAfterAnInterrupt(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(1500*time.Millisecond, cancel)
	st, teardown := hookRun(t, ctx, "exit 0", "exit 0", "sleep 30")
	if st.State != rundir.StateInterrupted {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	if teardown != "on server-was-up\n" {
		t.Errorf("after the interrupt the teardown hook wrote %q", teardown)
	}
}
