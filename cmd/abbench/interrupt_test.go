package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/lockedbuf"
	"github.com/abbench/abbench/internal/rundir"
)

// TestInterruptedRunLeavesNothing sends SIGINT to `abbench run` in the middle
// of a run whose rank ignores SIGTERM, and checks the process table: no
// process of any run is left, and the run's files are kept.
func TestInterruptedRunLeavesNothing(t *testing.T) {
	skipShort(t)
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	dir := t.TempDir()
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	scenario := filepath.Join(dir, "hang.yaml")
	os.WriteFile(scenario, []byte(strings.ReplaceAll(`name: hang
arms:
  async: {env: {DISAGGSIM_TERMINAL: "1", DISAGGSIM_FAULTS: "hang-rank=1"}}
  blocking: {env: {DISAGGSIM_TERMINAL: "0", DISAGGSIM_FAULTS: "hang-rank=1"}}
baseline: blocking
workload: {prompts: PROMPTS}
roles:
  - {name: ctx, ranks: 4, arm_env: true, ready: {log: 'ready rank='},
     command: [disaggsim, ctx, --rank, "{{.Rank}}", --ranks, "4", --coord, "{{.Coord}}"]}
  - {name: gen, ranks: 2, ready: {log: 'ready rank='}, command: [disaggsim, gen, --rank, "{{.Rank}}", --coord, "{{.Coord}}"]}
  - {name: frontend, after: [ctx, gen], ready: {log: 'ready addr='}, command: [disaggsim, frontend, --coord, "{{.Coord}}", --ctx-ranks, "4"]}
  - {name: client, client: true, after_ready: true,
     command: [disaggsim, client, --coord, "{{.Coord}}", --prompts, PROMPTS, --out, "{{.Out}}/throughput.json"]}
deadlines: {ready: 20s, client: 5m, teardown: 10s, kill_grace: 1s}
`, "PROMPTS", prompts)), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(abbench, "run", scenario, "-v", "--out", out, "--repeat", "1")
	cmd.Env = wide()
	var stderr lockedbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the client of the first run is running, then interrupt:
	// its progress line's phase, not the scenario's warnings (which name
	// the client role) printed before any run.
	clientPhase := regexp.MustCompile(`run +[12]/2 +\S+ +client`)
	deadline := time.Now().Add(30 * time.Second)
	for !clientPhase.MatchString(stderr.String()) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("run never reached the client phase:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	interrupted := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("abbench run did not stop within 30s of SIGINT")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitError {
		t.Fatalf("exit %v, want status %d\n%s", err, cli.ExitError, stderr.String())
	}
	t.Logf("stopped %s after SIGINT", time.Since(interrupted).Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(out, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p rundir.Plan
	json.Unmarshal(data, &p)
	if len(p.Runs) != 2 || p.Runs[0].Token == "" || p.Runs[1].Result != nil {
		t.Fatalf("plan after interrupt: %s", data)
	}
	if left := arms.Survivors(p.Runs[0].Token); len(left) > 0 {
		t.Fatalf("processes %v of the interrupted run survived", left)
	}
	st, _ := rundir.LatestStatus(p.Runs[0].Dir)
	if st == nil || st.State != rundir.StateInterrupted {
		t.Fatalf("status of the interrupted run: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(st.Dir, "ctx-1.log")); err != nil {
		t.Fatalf("logs of the interrupted run are gone: %v", err)
	}
}

// skipShort skips a test that signals or kills runs under go test -short:
// each takes seconds, and on a loaded machine its deadlines are the first
// to go.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("signals a running campaign: go test without -short runs it")
	}
}

// slowClient is a scenario's roles whose client takes 3 s: time to strike
// the run's allocation from outside while it runs.
const slowClient = `roles:
  - {name: w, arm_env: true, ready: {log: up}, command: [sh, -c, 'echo up; exec sleep 60']}
  - {name: client, client: true, after_ready: true,
     command: [sh, -c, 'sleep 3; echo "{\"num_prompts\": 1, \"completed\": 1, \"failed\": 0, \"output_throughput\": 10.0, \"valid\": true}" > "{{.Out}}/t.json"']}
evidence:
  throughput: {file: t.json, format: vllm}
acceptance:
  - {throughput: valid}
deadlines: {ready: 20s, client: 20s, drain: 1s, teardown: 10s, kill_grace: 2s}
`

// TestSlurmJobCancelledFromOutside scancels a run's job from outside:
// abbench reports the run failed with Slurm's state, runs the next one,
// and censors the comparison.
func TestSlurmJobCancelledFromOutside(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	needSlurm(t)
	dir := t.TempDir()
	scenario := writeTwoArmScenario(t, dir, "slow", slowClient)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(abbench, "run", scenario, "-v", "--launcher", "slurm", "--out", out, "--repeat", "1")
	cmd.Env = wide()
	var stdout lockedbuf.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(out, "runs", "1-a", "job_id")
	waitForRegistration(t, cmd, filepath.Join(out, "runs", "1-a"), "w-0")
	id, _ := os.ReadFile(jobFile)
	if out, err := exec.Command("scancel", strings.TrimSpace(string(id))).CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v %s", err, out)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitCensored {
		t.Fatalf("exit %v, want %d\n%s", err, cli.ExitCensored, stdout.String())
	}
	for _, want := range []string{"slurm job " + strings.TrimSpace(string(id)) + " CANCELLED", "2   | b", "CENSORED"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestSlurmInterruptCancelsOnlyItsJobs sends SIGINT to `abbench run
// --launcher slurm` while its job runs: abbench cancels that job, and a job
// of somebody else's keeps running.
func TestSlurmInterruptCancelsOnlyItsJobs(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	needSlurm(t)
	dir := t.TempDir()
	other, err := exec.Command("sbatch", "--parsable", "--output=/dev/null", "--wrap", "sleep 30").Output()
	if err != nil {
		t.Fatal(err)
	}
	otherID := strings.TrimSpace(string(other))
	defer exec.Command("scancel", otherID).Run()
	scenario := writeTwoArmScenario(t, dir, "s", `roles:
  - {name: w, arm_env: true, ready: {log: up}, command: [sh, -c, 'echo up; exec sleep 60']}
  - {name: client, client: true, after_ready: true, command: [sleep, "30"]}
deadlines: {ready: 20s, client: 60s, drain: 1s, teardown: 10s, kill_grace: 2s}
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(abbench, "run", scenario, "-v", "--launcher", "slurm", "--out", out, "--repeat", "1")
	cmd.Env = wide()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	jobFile := filepath.Join(out, "runs", "1-a", "job_id")
	waitForRegistration(t, cmd, filepath.Join(out, "runs", "1-a"), "client-0")
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitError {
		t.Fatalf("exit %v, want %d", err, cli.ExitError)
	}
	id, _ := os.ReadFile(jobFile)
	state := func(id string) string {
		out, _ := exec.Command("scontrol", "-o", "show", "job", id).Output()
		for _, f := range strings.Fields(string(out)) {
			if v, ok := strings.CutPrefix(f, "JobState="); ok {
				return v
			}
		}
		return "gone"
	}
	if s := state(strings.TrimSpace(string(id))); s == "RUNNING" || s == "PENDING" {
		t.Fatalf("abbench's job is still %s after SIGINT", s)
	}
	if s := state(otherID); s != "RUNNING" {
		t.Fatalf("the other job is %s: abbench cancelled a job not its own", s)
	}
}

// needSlurm skips under -short, and without a Slurm cluster except in CI,
// where .ci/run starts one and its absence fails the test.
func needSlurm(t *testing.T) {
	t.Helper()
	skipShort(t)
	if ok, why := slurmUp(); !ok {
		if os.Getenv("CI") != "" {
			t.Fatalf("no Slurm cluster in CI: %s", why)
		}
		t.Skip("no Slurm cluster (sudo scripts/slurm-dev-cluster.sh up)")
	}
}

// waitForRegistration waits until rank ("role-rank") of the run in runDir
// registered, killing cmd and failing the test after a minute.
func waitForRegistration(t *testing.T, cmd *exec.Cmd, runDir, rank string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if regs, _ := filepath.Glob(filepath.Join(runDir, "*", "coord", "ranks", rank+".json")); len(regs) > 0 {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s of %s never registered", rank, runDir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestKilledRunLeavesNothing sends SIGKILL to `abbench run` at random
// moments (starting, checking, in the client) of runs whose ranks fork
// children and setsid daemons, and requires that no process of any run
// (found by its token) is alive 5 s later, and that the campaign then
// compares as censored. ABBENCH_KILL_TRIALS sets the number of trials
// (default 5; bench/kill-run.sh runs 50).
func TestKilledRunLeavesNothing(t *testing.T) {
	skipShort(t)
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	trials := 5
	if n, err := strconv.Atoi(os.Getenv("ABBENCH_KILL_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	dir := t.TempDir()
	scenario := writeTwoArmScenario(t, dir, "forks", `roles:
  - {name: server, ranks: 3, arm_env: true, ready: {log: up},
     command: [sh, -c, 'setsid sh -c "trap \"\" TERM HUP; exec sleep 300" & (trap "" TERM; sleep 300) & echo up; exec sleep 300']}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'sleep 300 & sleep 0.5; echo "tps=1 requested=1 completed=1 failed=0" > "{{.Out}}/r.txt"']}
evidence:
  throughput: {file: r.txt, format: regex, metric: tps, pattern: 'tps=(?P<tps>[0-9.]+) requested=(?P<requested>\d+) completed=(?P<completed>\d+) failed=(?P<failed>\d+)'}
deadlines: {ready: 10s, client: 30s, teardown: 5s, kill_grace: 1s}
`)
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for trial := range trials {
		out := filepath.Join(dir, fmt.Sprintf("out-%d", trial))
		cmd := exec.Command(abbench, "run", scenario, "--out", out, "--repeat", "2")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(rnd.IntN(2500)) * time.Millisecond
		time.Sleep(after)
		cmd.Process.Kill()
		cmd.Wait()
		statuses, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", rundir.StatusFile))
		var left []int
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			left = nil
			for _, s := range statuses {
				left = append(left, arms.Survivors(filepath.Base(filepath.Dir(s)))...)
			}
			if len(left) == 0 || time.Now().After(deadline) {
				break
			}
		}
		if len(left) > 0 {
			t.Fatalf("trial %d (killed after %s): processes %v of the run are alive 5s later", trial, after, left)
		}
		if len(statuses) == 0 {
			continue // killed before any run started
		}
		// The campaign, and each run's own directory, compare as censored
		// (3), not as an error (2).
		for _, target := range append([]string{out}, filepath.Dir(filepath.Dir(statuses[0]))) {
			res := exec.Command(abbench, "compare", target)
			msg, _ := res.CombinedOutput()
			if code := res.ProcessState.ExitCode(); code != cli.ExitCensored {
				t.Fatalf("trial %d (killed after %s): compare %s exited %d, want %d\n%s", trial, after, target, code, cli.ExitCensored, msg)
			}
		}
	}
}

// writeTwoArmScenario writes a one-prompt workload and the scenario NAME.yaml
// in dir: arms a and b differing only in MODE, b the baseline, then rest
// (its roles and what follows); it returns the scenario's path.
func writeTwoArmScenario(t *testing.T, dir, name, rest string) string {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	head := "name: " + name + "\narms:\n  a: {env: {MODE: \"1\"}}\n  b: {env: {MODE: \"0\"}}\nbaseline: b\nworkload: {prompts: prompts.jsonl}\n"
	if err := os.WriteFile(filepath.Join(dir, "prompts.jsonl"), []byte("[1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(head+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
