package arms

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/internal/rundir"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/testbin"
)

var simDir string // holds a disaggsim built for these tests

// TestMain lets the test binary serve as the rank wrapper (abbench
// rank-exec) and builds disaggsim for the end-to-end tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "spawn-rank" {
		// A stand-in controller: start the wrapper as the controller does
		// (its own group, SIGKILL at parent death), say its pid, and wait
		// to be killed.
		cmd := exec.Command(os.Args[2], os.Args[3:]...)
		cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		select {}
	}
	if len(os.Args) == 5 && os.Args[1] == "arm-controller" {
		// A controller in a process of its own, to be killed by a test.
		s, err := scenarios.Load(os.Args[2])
		if err != nil {
			panic(err)
		}
		Run(context.Background(), s, os.Args[3], Options{Out: os.Args[4]})
		os.Exit(0)
	}
	if len(os.Args) == 4 && os.Args[1] == "guard-starter" {
		// A controller that starts a rank (carrying the run's token) and
		// its guard, and dies at once, while the guard is still starting.
		rank := exec.Command("sleep", "60")
		rank.Env = []string{rankwrap.EnvToken + "=" + os.Args[2]}
		if err := rank.Start(); err != nil {
			panic(err)
		}
		if _, err := startGuard(os.Args[0], os.Args[2], os.Args[3], ""); err != nil {
			panic(err)
		}
		os.Exit(0)
	}
	if len(os.Args) >= 5 && os.Args[1] == "guard" {
		pid, _ := strconv.Atoi(os.Args[4])
		docker := ""
		if len(os.Args) == 6 {
			docker = os.Args[5]
		}
		IgnoreSignals()
		Guard(os.Stdin, os.Args[2], os.Args[3], pid, docker)
		os.Exit(0)
	}
	if len(os.Args) > 2 && os.Args[1] == "rank-exec" {
		err := rankwrap.Exec(os.Args[3:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(127)
	}
	dir, err := os.MkdirTemp("", "arms-test-bin")
	if err != nil {
		panic(err)
	}
	// Built once into a kept directory (linked only when their sources
	// changed), then linked into this run's own: the tests add abbench
	// beside abbench-rank there.
	if err := testbin.BuildInto(dir, nil, nil, "../../cmd/disaggsim", "../../cmd/abbench-rank"); err != nil {
		panic("building disaggsim and abbench-rank: " + err.Error())
	}
	simDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func loadScenario(t *testing.T, yaml string) *scenarios.Scenario {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prompts.jsonl"), []byte("[1,2]\n[3]\n"), 0o644)
	path := filepath.Join(dir, "s.yaml")
	os.WriteFile(path, []byte(yaml), 0o644)
	s, err := scenarios.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runArm runs arm with the test binary as abbench (not under go test
// -short: skipShortRun). With fastWrapper the
// binary sits beside abbench-rank, which then wraps the ranks; otherwise
// the ranks go through its rank-exec verb.
func runArm(t *testing.T, ctx context.Context, s *scenarios.Scenario, arm string, fastWrapper ...bool) *rundir.Status {
	t.Helper()
	skipShortRun(t)
	env := append(os.Environ(), "PATH="+simDir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	self := os.Args[0]
	if len(fastWrapper) > 0 && fastWrapper[0] {
		self = filepath.Join(simDir, "abbench")
		if _, err := os.Stat(self); err != nil {
			if err := os.Link(os.Args[0], self); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := Run(ctx, s, arm, Options{Out: t.TempDir(), Self: self, Inherited: env})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Status
	if left := Survivors(st.Token); len(left) > 0 {
		t.Fatalf("processes %v of token %s are alive after Run returned", left, st.Token)
	}
	return st
}

func codes(st *rundir.Status) string {
	var c []string
	for _, r := range st.Reasons {
		c = append(c, string(r.Code))
	}
	return strings.Join(c, ",")
}

// Values that break naive propagation: commas (srun --export), spaces,
// '=', quotes, a newline and non-ASCII text.
const hardValue = "a,b c=d \"q\" 'r'\nsecond line ü✓"

const envScenario = `name: env
arms:
  hard: {env: {MODE: "` + "a,b c=d \\\"q\\\" 'r'\\nsecond line ü✓" + `", OTHER: "1"}}
  plain: {env: {MODE: "x", OTHER: "1"}}
baseline: plain
workload: {prompts: prompts.jsonl}
env: {CONST: "{{.Role}}-{{.Rank}}"}
roles:
  - {name: server, ranks: 3, arm_env: true, command: [sh, -c, 'echo "mode rank=$ABBENCH_RANK"; exec sleep 60'], ready: {log: 'mode rank='}}
  - {name: helper, ranks: 2, command: [sh, -c, 'exec sleep 60']}
  - {name: client, client: true, after_ready: true, arm_env: true, command: [sh, -c, 'env > "{{.Out}}/client-env"']}
deadlines: {ready: 10s, client: 10s, teardown: 5s, kill_grace: 1s}
`

func TestArmEnvReachesExactlyTheArmRoles(t *testing.T) {
	s := loadScenario(t, envScenario)
	if s.Arms["hard"].Env["MODE"] != hardValue {
		t.Fatalf("test scenario decodes MODE as %q", s.Arms["hard"].Env["MODE"])
	}
	st := runArm(t, context.Background(), s, "hard")
	if st.State != rundir.StateSucceeded {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	coord := filepath.Join(st.Dir, "coord")
	for _, role := range []struct {
		name   string
		ranks  int
		armEnv bool
	}{{"server", 3, true}, {"helper", 2, false}, {"client", 1, true}} {
		for rank := range role.ranks {
			reg, ok, err := rundir.ReadRegistration(coord, role.name, rank)
			if err != nil || !ok {
				t.Fatalf("%s rank %d: no registration (%v)", role.name, rank, err)
			}
			got := reg.ArmEnv["MODE"]
			switch {
			case role.armEnv && (got == nil || *got != hardValue):
				t.Errorf("%s rank %d received MODE=%v, want %q", role.name, rank, got, hardValue)
			case !role.armEnv && got != nil:
				t.Errorf("%s rank %d received arm key MODE=%q", role.name, rank, *got)
			}
			if reg.Token != st.Token || reg.PID <= 0 || reg.Host == "" {
				t.Errorf("%s rank %d registration incomplete: %+v", role.name, rank, reg)
			}
		}
	}
	env, _ := os.ReadFile(filepath.Join(st.Dir, "client-env"))
	if !strings.Contains(string(env), "CONST=client-0\n") {
		t.Errorf("scenario env template not applied for the client:\n%s", env)
	}
	if strings.Contains(string(env), "SECRET_OF_THE_CONTROLLER") {
		t.Error("a variable outside the documented base reached a rank")
	}
}

func TestInheritedEnvIsOnlyTheBase(t *testing.T) {
	t.Setenv("SECRET_OF_THE_CONTROLLER", "x")
	t.Setenv("MODE", "leaked-from-the-shell")
	s := loadScenario(t, envScenario)
	st := runArm(t, context.Background(), s, "plain")
	if st.State != rundir.StateSucceeded {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	reg, _, _ := rundir.ReadRegistration(filepath.Join(st.Dir, "coord"), "helper", 0)
	if reg.ArmEnv["MODE"] != nil {
		t.Fatalf("the controller's own MODE reached a role without arm env: %q", *reg.ArmEnv["MODE"])
	}
	for _, k := range st.Inherited {
		if k == "SECRET_OF_THE_CONTROLLER" || k == "MODE" {
			t.Fatalf("inherited %s", k)
		}
	}
}

const simScenario = `name: sim
arms:
  async: {env: {DISAGGSIM_TERMINAL: "1", DISAGGSIM_FAULTS: "%s"}}
  blocking: {env: {DISAGGSIM_TERMINAL: "0", DISAGGSIM_FAULTS: ""}}
baseline: blocking
env: {DISAGGSIM_PEER_READY: "1", DISAGGSIM_LINK_DELAY: 1ms}
workload: {prompts: %s}
roles:
  - {name: ctx, ranks: 4, arm_env: true, ready: {log: 'ready rank='},
     command: [disaggsim, ctx, --rank, "{{.Rank}}", --ranks, "4", --coord, "{{.Coord}}"]}
  - {name: gen, ranks: 2, ready: {log: 'ready rank='}, command: [disaggsim, gen, --rank, "{{.Rank}}", --coord, "{{.Coord}}"]}
  - {name: frontend, after: [ctx, gen], ready: {log: 'ready addr='}, command: [disaggsim, frontend, --coord, "{{.Coord}}", --ctx-ranks, "4"]}
  - {name: client, client: true, after_ready: true,
     command: [disaggsim, client, --coord, "{{.Coord}}", --prompts, %s, --requests, "256", --concurrency, "32", --out, "{{.Out}}/throughput.json"]}
evidence:
  mode: {role: ctx, pattern: 'mode rank=(?P<rank>\d+) phase=\S+ terminal=(?P<DISAGGSIM_TERMINAL>\S+)'}
deadlines: {ready: 20s, client: %s, drain: 2s, teardown: 10s, kill_grace: %s}
`

func simulated(t *testing.T, fault, clientDeadline, grace string) *scenarios.Scenario {
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	return loadScenario(t, fmt.Sprintf(simScenario, fault, prompts, prompts, clientDeadline, grace))
}

func TestSimulatorBothArmsSucceed(t *testing.T) {
	skipShortRun(t)
	s := simulated(t, "", "60s", "2s")
	for _, arm := range []string{"async", "blocking"} {
		st := runArm(t, context.Background(), s, arm, true)
		if st.State != rundir.StateSucceeded {
			t.Fatalf("%s: %s %v", arm, st.State, st.Reasons)
		}
		reg, ok, _ := rundir.ReadRegistration(filepath.Join(st.Dir, "coord"), "ctx", 3)
		if !ok || reg.ArmEnv["DISAGGSIM_TERMINAL"] == nil || *reg.ArmEnv["DISAGGSIM_TERMINAL"] != s.Arms[arm].Env["DISAGGSIM_TERMINAL"] {
			t.Fatalf("%s: abbench-rank registration of ctx rank 3: %+v", arm, reg)
		}
		if _, err := os.Stat(filepath.Join(st.Dir, "throughput.json")); err != nil {
			t.Fatalf("%s: no throughput record: %v", arm, err)
		}
	}
}

func TestIgnoredArmEnvStopsBeforeTheClient(t *testing.T) {
	st := runArm(t, context.Background(), simulated(t, "ignore-arm-env", "60s", "2s"), "async")
	if st.State != rundir.StateFailed || !strings.Contains(codes(st), string(reason.ArmModeMismatch)) {
		t.Fatalf("state %s reasons %v", st.State, st.Reasons)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "client-0.log")); err == nil {
		t.Fatal("the client was started although the mode did not match")
	}
	if !strings.Contains(st.Reasons[0].Detail, "logs DISAGGSIM_TERMINAL=0") {
		t.Errorf("detail %q does not say what the rank logged", st.Reasons[0].Detail)
	}
}

func TestCrashedRankAbortsPromptly(t *testing.T) {
	skipShort(t) // the controller stops the other ranks with signals
	start := time.Now()
	st := runArm(t, context.Background(), simulated(t, "crash-rank=2", "30s", "1s"), "async")
	if st.State != rundir.StateFailed || codes(st) != string(reason.RankExited) {
		t.Fatalf("state %s reasons %v", st.State, st.Reasons)
	}
	if !strings.Contains(st.Reasons[0].Detail, "ctx rank 2 exited with status 3") {
		t.Errorf("detail %q", st.Reasons[0].Detail)
	}
	// Deadline 30s: the abort must come from the exit, not the deadline.
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %s to notice a crashed rank", took)
	}
}

func TestHungRankIsKilledWithinDeadlinePlusGrace(t *testing.T) {
	skipShort(t)
	start := time.Now()
	st := runArm(t, context.Background(), simulated(t, "hang-rank=1", "3s", "1s"), "async")
	if st.State != rundir.StateFailed || !strings.Contains(codes(st), string(reason.DeadlineExceeded)) {
		t.Fatalf("state %s reasons %v", st.State, st.Reasons)
	}
	// ready (bounded) + client 3s + teardown: SIGTERM, 1s grace, SIGKILL.
	if took := time.Since(start); took > 3*time.Second+10*time.Second+5*time.Second {
		t.Errorf("took %s", took)
	}
	for _, r := range st.Ranks {
		if r.Role == "ctx" && r.Rank == 1 && !r.Killed {
			t.Errorf("the hung rank was not killed: %+v", r)
		}
	}
}

func TestInterruptTearsDown(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	st := runArm(t, ctx, simulated(t, "hang-rank=0", "60s", "1s"), "async")
	if st.State != rundir.StateInterrupted || !strings.Contains(codes(st), string(reason.Interrupted)) {
		t.Fatalf("state %s reasons %v", st.State, st.Reasons)
	}
}

func TestRerunGetsNewTokenAndIgnoresOldFiles(t *testing.T) {
	skipShortRun(t) // two whole arms
	s := loadScenario(t, envScenario)
	out := t.TempDir()
	env := append(os.Environ(), "PATH="+simDir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	// A previous attempt's namespace with a registration claiming the wrong
	// arm value and an abort file: a controller that read it would fail.
	old := filepath.Join(out, "20200101T000000Z-old", "coord")
	os.MkdirAll(filepath.Join(old, "ranks"), 0o755)
	os.WriteFile(filepath.Join(old, "ranks", "server-0.json"), []byte(`{"role":"server","rank":0,"token":"old","arm_env":{"MODE":"wrong"}}`), 0o644)
	os.WriteFile(filepath.Join(old, "abort"), []byte(`[{"code":"rank-exited"}]`), 0o644)
	os.WriteFile(filepath.Join(out, "LATEST"), []byte("20200101T000000Z-old\n"), 0o644)
	before, _ := os.ReadFile(filepath.Join(old, "ranks", "server-0.json"))

	var tokens []string
	for range 2 {
		res, err := Run(context.Background(), s, "hard", Options{Out: out, Self: os.Args[0], Inherited: env})
		if err != nil {
			t.Fatal(err)
		}
		st := res.Status
		if st.State != rundir.StateSucceeded {
			t.Fatalf("rerun failed: %v", st.Reasons)
		}
		tokens = append(tokens, st.Token)
	}
	if tokens[0] == tokens[1] || tokens[0] == "20200101T000000Z-old" {
		t.Fatalf("tokens %v are not fresh", tokens)
	}
	latest, _ := os.ReadFile(filepath.Join(out, "LATEST"))
	if strings.TrimSpace(string(latest)) != tokens[1] {
		t.Fatalf("LATEST is %q, want %s", latest, tokens[1])
	}
	after, _ := os.ReadFile(filepath.Join(old, "ranks", "server-0.json"))
	if string(before) != string(after) {
		t.Fatal("the old attempt's files were changed")
	}
}

func TestBarrierNamesWhoIsMissing(t *testing.T) {
	b := NewBarrier(t.TempDir(), "teardown", "controller-0", "controller-1")
	if err := b.Arrive("gpu-worker-7"); err == nil {
		t.Fatal("a non-participant arrived")
	}
	b.Arrive("controller-0")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := b.Wait(ctx)
	if err == nil || !strings.Contains(err.Error(), "controller-1 never arrived") {
		t.Fatalf("got %v", err)
	}
	b.Arrive("controller-1")
	if err := b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A rank that leaves a setsid daemon behind is swept at teardown; the
// run is not censored for it (the daemon is gone when the run ends), and
// no trial reports a false unclean-shutdown.
func TestDaemonLeftByARankIsSweptNotCensored(t *testing.T) {
	skipShort(t)
	s := loadScenario(t, `name: daemon
arms:
  a: {env: {MODE: "a"}}
  b: {env: {MODE: "b"}}
baseline: a
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, ranks: 2, arm_env: true, command: [sh, -c, 'setsid sh -c "trap \"\" TERM; while :; do sleep 0.01; done" & sleep 0.05 & echo up; exec sleep 60'], ready: {log: up}}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'sleep 0.05']}
deadlines: {ready: 10s, client: 10s, teardown: 5s, kill_grace: 1s}
`)
	for trial := range 6 {
		st := runArm(t, context.Background(), s, "a", true)
		if st.State != rundir.StateSucceeded {
			t.Fatalf("trial %d: %s: %s", trial, st.State, codes(st))
		}
		if st.Swept == 0 {
			t.Fatalf("trial %d: the daemon was not swept", trial)
		}
	}
}

// SIGKILL of the controller kills every rank the wrapper started, in every
// trial: the wrapper execs from the thread that holds the parent-death
// signal (before the fix, 1-5% of ranks survived).
func TestRanksDieWithAKilledController(t *testing.T) {
	skipShort(t)
	coord := t.TempDir()
	os.MkdirAll(filepath.Join(coord, rundir.RanksDir), 0o755)
	wrapper := filepath.Join(simDir, "abbench-rank")
	survived := 0
	const trials = 200
	for i := range trials {
		cmd := exec.Command(os.Args[0], "spawn-rank", wrapper, "--", "sleep", "30")
		cmd.Env = append(os.Environ(), rankwrap.EnvCoord+"="+coord, rankwrap.EnvRole+"=r", rankwrap.EnvRank+"="+fmt.Sprint(i), rankwrap.EnvToken+"=pdeath-test")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var pid int
		if _, err := fmt.Fscan(out, &pid); err != nil {
			t.Fatal(err)
		}
		// Wait until the wrapper has exec'd sleep (its registration is
		// written just before), then kill the controller.
		reg := rundir.RegistrationPath(coord, "r", i)
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, err := os.Stat(reg); err == nil {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		gone := false
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			// Gone, or a zombie waiting for whoever adopted it to reap it.
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil || strings.Contains(string(stat), ") Z ") {
				gone = true
				break
			}
		}
		if !gone {
			survived++
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if survived > 0 {
		t.Fatalf("%d of %d ranks survived their controller's SIGKILL", survived, trials)
	}
}

// A SIGKILLed controller leaves nothing behind: its guard kills the ranks'
// children and setsid daemons (which no parent-death signal reaches) and
// marks the attempt interrupted.
func TestGuardSweepsAfterAKilledController(t *testing.T) {
	skipShort(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir()) // the killed controller's live note stays here
	s := loadScenario(t, `name: guarded
arms:
  a: {env: {MODE: "a"}}
  b: {env: {MODE: "b"}}
baseline: a
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, ranks: 2, arm_env: true, command: [sh, -c, 'setsid sh -c "trap \"\" TERM; exec sleep 300" & sleep 300 & echo up; exec sleep 300'], ready: {log: up}}
  - {name: client, client: true, after_ready: true, command: [sleep, "300"]}
deadlines: {ready: 10s, client: 5m, teardown: 5s, kill_grace: 1s}
`)
	out := t.TempDir()
	// The controller is this test binary in a child process: arm-controller mode.
	cmd := exec.Command(os.Args[0], "arm-controller", s.File, "a", out)
	cmd.Env = append(os.Environ(), "PATH="+simDir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var attempt string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run never reached its client")
		}
		if a, err := rundir.LatestAttempt(out); err == nil {
			if st, err := rundir.ReadStatus(a); err == nil && st.Phase == "client" {
				attempt = a
				break
			}
		}
	}
	st, _ := rundir.ReadStatus(attempt)
	if n := len(Survivors(st.Token)); n < 6 {
		t.Fatalf("only %d processes of the run before the kill", n)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); len(Survivors(st.Token)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of the run outlived its killed controller by 5s", Survivors(st.Token))
		}
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, _ = rundir.ReadStatus(attempt)
		if st.State == rundir.StateInterrupted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the attempt still says %s", st.State)
		}
	}
	if codes(st) != "interrupted" {
		t.Fatalf("reasons %s", codes(st))
	}
}

// An abandoned attempt whose status cannot be written is said (a
// write-failed reason) and its note kept for the next sweep; once it can
// be written, that sweep marks it.
func TestSweepDeadSaysWhatItCouldNotMark(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	a := abandon(t, "unmarked-"+strconv.Itoa(os.Getpid()))
	note := plant(t, noteName(a.token), a.note)
	undo := unwritable(t, a.attempt)
	swept, err := SweepDead()
	if len(swept) != 0 || err == nil || !strings.Contains(err.Error(), "write-failed (arm a): marking the attempt interrupted: writing "+filepath.Join(a.attempt, rundir.StatusFile)) {
		t.Fatalf("SweepDead = %v, %v", swept, err)
	}
	if _, err := os.Stat(note); err != nil {
		t.Fatalf("the note of the unmarked attempt was removed: %v", err)
	}
	undo()
	if swept, err := SweepDead(); err != nil || len(swept) != 1 {
		t.Fatalf("the next sweep = %v, %v", swept, err)
	}
	if st, err := rundir.ReadStatus(a.attempt); err != nil || st.State != rundir.StateInterrupted {
		t.Fatalf("status after the next sweep: %v %v", st, err)
	}
}

// unwritable makes dir refuse new files until the returned func undoes
// it: read-only for a user; for root, whom modes do not stop, dir's content
// moves onto a tmpfs mounted read-only on it.
func unwritable(t *testing.T, dir string) (undo func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	saved, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range saved {
		if files[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	remount := func(flags uintptr) {
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|flags, ""); err != nil {
			t.Fatal(err)
		}
	}
	remount(syscall.MS_RDONLY)
	return func() { remount(0) }
}
