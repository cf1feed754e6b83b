package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for disaggsim, so the end-to-end
// tests start real processes of this very code.
func TestMain(m *testing.M) {
	if os.Getenv("DISAGGSIM_AS_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestInvalidModeRefusesToStart(t *testing.T) {
	for _, env := range []string{"DISAGGSIM_TERMINAL=2", "DISAGGSIM_PEER_READY=yes", "DISAGGSIM_TERMINAL="} {
		cmd := exec.Command(os.Args[0], "ctx", "--coord", t.TempDir())
		cmd.Env = append(os.Environ(), "DISAGGSIM_AS_MAIN=1", env)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "only 0 and 1 are accepted") {
			t.Errorf("%s: exit %v, output %q", env, err, out)
		}
	}
}

// disaggsim --help is the usage on standard output and exit 0: it said
// "--coord is required" and exited 2.
func TestHelpIsTheUsage(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		cmd := exec.Command(os.Args[0], arg)
		cmd.Env = append(os.Environ(), "DISAGGSIM_AS_MAIN=1")
		out, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(out), "usage:\n") || !strings.Contains(string(out), "disaggsim serve --listen ADDR") {
			t.Errorf("disaggsim %s: %v, output %q", arg, err, out)
		}
	}
}

type system struct {
	dir       string
	clientErr error
	ctxExit   []int // -1 when the rank had to be killed
	record    map[string]any
}

func (s *system) log(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summaries returns field of every CTX rank's runtime shutdown summary.
func (s *system) summaries(t *testing.T, field string) []string {
	re := regexp.MustCompile(`shutdown_summary rank=\d+ phase=runtime .*\b` + field + `=(\d+)`)
	var out []string
	for r := range 4 {
		for _, line := range strings.Split(s.log(t, fmt.Sprintf("ctx-%d.log", r)), "\n") {
			if strings.Contains(line, "attempt=previous") {
				continue
			}
			if m := re.FindStringSubmatch(line); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

func (s *system) activations(t *testing.T) []string {
	re := regexp.MustCompile(`(?m)activation_sequence rank=\d+ count=(\d+) digest=([0-9a-f]{64}) algorithm=(\S+)$`)
	var out []string
	for r := range 4 {
		if m := re.FindStringSubmatch(s.log(t, fmt.Sprintf("ctx-%d.log", r))); m != nil {
			out = append(out, m[1]+":"+m[2])
		}
	}
	return out
}

// runSystem starts 2 GEN ranks, 4 CTX ranks, the frontend and the client on
// 256 prompts with concurrency 32, as scenarios/quickstart.yaml does, then
// stops every process: SIGTERM, then SIGKILL after a grace.
func runSystem(t testing.TB, clientTimeout time.Duration, env ...string) *system {
	t.Helper()
	s, r := startSystem(t, env, nil, nil)
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	out := filepath.Join(s.dir, "throughput.json")
	client := r.start("client", "client", "--coord", r.coord, "--prompts", prompts, "--requests", "256",
		"--concurrency", "32", "--out", out, "--timeout", clientTimeout.String())
	s.clientErr = client.Wait()
	r.stop()
	if b, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(b, &s.record); err != nil {
			t.Fatalf("throughput record: %v", err)
		}
	}
	return s
}

// running is a started system's processes.
type running struct {
	t       testing.TB
	s       *system
	coord   string
	env     []string
	ctx     []*exec.Cmd
	servers []*exec.Cmd
	stopped bool
}

// startSystem starts 2 GEN ranks, 4 CTX ranks (given ctxArgs(rank) too,
// when set) and the frontend (given frontendArgs too), each logging to
// its file in the system's directory.
func startSystem(t testing.TB, env []string, ctxArgs func(rank int) []string, frontendArgs []string) (*system, *running) {
	t.Helper()
	s := &system{dir: t.TempDir()}
	r := &running{t: t, s: s, coord: filepath.Join(s.dir, "coord"), env: append(append(os.Environ(), "DISAGGSIM_AS_MAIN=1", "DISAGGSIM_SEED=42"), env...)}
	for rank := range 2 {
		r.servers = append(r.servers, r.start(fmt.Sprintf("gen-%d", rank), "gen", "--rank", fmt.Sprint(rank), "--coord", r.coord))
	}
	for rank := range 4 {
		args := []string{"ctx", "--rank", fmt.Sprint(rank), "--ranks", "4", "--gen-ranks", "2", "--coord", r.coord}
		if ctxArgs != nil {
			args = append(args, ctxArgs(rank)...)
		}
		r.ctx = append(r.ctx, r.start(fmt.Sprintf("ctx-%d", rank), args...))
	}
	r.servers = append(r.servers, r.start("frontend", append([]string{"frontend", "--coord", r.coord, "--ctx-ranks", "4"}, frontendArgs...)...))
	return s, r
}

// start starts one process of the system.
func (r *running) start(name string, args ...string) *exec.Cmd {
	f, err := os.OpenFile(filepath.Join(r.s.dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = r.env, f, f
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	return cmd
}

// stop stops every process: SIGTERM, then SIGKILL after a grace; the CTX
// ranks' exits go into the system. Only the first call stops them.
func (r *running) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	stop := func(cmd *exec.Cmd) int {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
			return cmd.ProcessState.ExitCode()
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
			return -1
		}
	}
	for _, c := range r.ctx {
		r.s.ctxExit = append(r.s.ctxExit, stop(c))
	}
	for _, c := range r.servers {
		stop(c)
	}
}

const promptsDigest = "256:a6bb6239f480b1e64e86624b4c7f81e3897108009cdfe3e04fb769e6ffec59bd"

func allEqual(t *testing.T, what string, got []string, want string) {
	t.Helper()
	if len(got) != 4 {
		t.Fatalf("%s: %d ranks reported, want 4: %v", what, len(got), got)
	}
	for r, g := range got {
		if g != want {
			t.Fatalf("%s: rank %d says %s, want %s (all: %v)", what, r, g, want, got)
		}
	}
}

func TestBothModesCompleteEveryRequest(t *testing.T) {
	for _, mode := range []string{"0", "1"} {
		t.Run("terminal="+mode, func(t *testing.T) {
			shortSkipsSystem(t)
			modeCompletesEveryRequest(t, mode)
		})
	}
}

// modeCompletesEveryRequest runs the system in one terminal agreement
// mode (peer-ready the same) and requires every request completed, agreed
// and hashed alike on every rank, and a clean stop.
func modeCompletesEveryRequest(t *testing.T, mode string) {
	s := runSystem(t, 60*time.Second, "DISAGGSIM_TERMINAL="+mode, "DISAGGSIM_PEER_READY="+mode)
	if s.clientErr != nil {
		t.Fatalf("client: %v\n%s", s.clientErr, s.log(t, "client.log"))
	}
	if s.record["completed"] != 256.0 || s.record["failed"] != 0.0 || s.record["valid"] != true {
		t.Fatalf("record: completed %v failed %v valid %v", s.record["completed"], s.record["failed"], s.record["valid"])
	}
	allEqual(t, "terminal commits", s.summaries(t, "terminal_commits"), "256")
	allEqual(t, "activation digest", s.activations(t), promptsDigest)
	// Blocking mode puts the vote round trip on the critical path of
	// every round; asynchronous mode never waits for it. (The time
	// this costs is measured by BenchmarkTerminalModes.)
	waits := s.summaries(t, "vote_waits")[0]
	rounds := s.summaries(t, "ready_rounds")[0]
	if mode == "0" && (waits != rounds || waits == "0") || mode == "1" && waits != "0" {
		t.Errorf("terminal=%s: rank 0 waited on votes in %s of %s rounds", mode, waits, rounds)
	}
	for r, code := range s.ctxExit {
		if code != 0 {
			t.Errorf("ctx rank %d exited %d after SIGTERM", r, code)
		}
	}
	ctx0 := s.log(t, "ctx-0.log")
	for _, want := range []string{"mode rank=0 phase=profiling terminal=" + mode + " peer_ready=" + mode, "shutdown_summary rank=0 phase=profiling", "mode rank=0 phase=runtime terminal=" + mode} {
		if !strings.Contains(ctx0, want) {
			t.Errorf("ctx-0.log lacks %q", want)
		}
	}
	if !strings.Contains(s.log(t, "client.log"), "Successful requests:                     256") {
		t.Error("client console summary lacks the successful requests line")
	}
}

// faultCase is one fault the simulator injects: the client's deadline and
// what the system's logs and record must show.
type faultCase struct {
	fault   string
	timeout time.Duration
	check   func(t *testing.T, s *system)
}

func TestFaults(t *testing.T) {
	// Each case starts a system of four processes and stops it with
	// signals (1.5 s of CPU for the seven that wait out no deadline): the
	// quick loop leaves what signals processes to the full suite, and
	// keeps a system's clean run (TestAPIStreamsWhatTheClientSent).
	if testing.Short() {
		t.Skip("runs and signals a system of processes per fault: go test without -short runs it")
	}
	async := []string{"DISAGGSIM_TERMINAL=1", "DISAGGSIM_PEER_READY=1"}
	for _, c := range faultCases() {
		t.Run(c.fault, func(t *testing.T) {
			// Each system has its own directory and ports, so the cases
			// run side by side.
			t.Parallel()
			s := runSystem(t, c.timeout, append(async, "DISAGGSIM_FAULTS="+c.fault)...)
			c.check(t, s)
		})
	}
}

func faultCases() []faultCase {
	return []faultCase{
		{"ignore-arm-env", 60 * time.Second, everyRankLogsTheBlockingMode},
		{"drop-terminal-votes=1", 60 * time.Second, theLastRankLacksOneVote},
		{"kv-timeout=3", 60 * time.Second, threeTransfersFailTheRecord},
		{"crash-rank=2", 3 * time.Second, rankTwoCrashed},
		{"hang-rank=1", 3 * time.Second, rankOneNeededSIGKILL},
		{"no-validity", 60 * time.Second, theRecordHasNoValidityFlag},
		{"reorder-activations", 60 * time.Second, ranksAgreeOnAReorderedDigest},
		{"alter-prompt=5", 60 * time.Second, ranksAgreeOnAnAlteredDigest},
		{"stale-log", 60 * time.Second, aPreviousLifecycleComesFirst},
	}
}

// everyRankLogsTheBlockingMode: a rank that ignores the arm env runs, and
// says it runs, the blocking mode.
func everyRankLogsTheBlockingMode(t *testing.T, s *system) {
	for r := range 4 {
		if log := s.log(t, fmt.Sprintf("ctx-%d.log", r)); !strings.Contains(log, fmt.Sprintf("mode rank=%d phase=runtime terminal=0", r)) {
			t.Fatalf("rank %d does not log the blocking mode it ran", r)
		}
	}
}

func theLastRankLacksOneVote(t *testing.T, s *system) {
	allEqual(t, "terminal commits", s.summaries(t, "terminal_commits"), "255")
	if v := s.summaries(t, "terminal_votes"); len(v) != 4 || v[3] != "255" || v[0] != "256" {
		t.Fatalf("votes %v: the last rank should lack one vote", v)
	}
}

func threeTransfersFailTheRecord(t *testing.T, s *system) {
	if s.record["failed"] != 3.0 || s.record["completed"] != 253.0 || s.record["valid"] != false {
		t.Fatalf("record: completed %v failed %v valid %v", s.record["completed"], s.record["failed"], s.record["valid"])
	}
}

func rankTwoCrashed(t *testing.T, s *system) {
	if s.ctxExit[2] != 3 || s.clientErr == nil {
		t.Fatalf("rank 2 exit %d, client %v", s.ctxExit[2], s.clientErr)
	}
	if !strings.Contains(s.log(t, "ctx-2.log"), "fatal rank=2 fault=crash-rank") {
		t.Fatal("rank 2 does not say it crashed")
	}
}

func rankOneNeededSIGKILL(t *testing.T, s *system) {
	if s.ctxExit[1] != -1 || s.clientErr == nil {
		t.Fatalf("rank 1 should ignore SIGTERM and need SIGKILL: exit %d, client %v", s.ctxExit[1], s.clientErr)
	}
}

func theRecordHasNoValidityFlag(t *testing.T, s *system) {
	if _, ok := s.record["valid"]; ok || s.record["completed"] != 256.0 {
		t.Fatalf("record has the validity flag or lost requests: %v", s.record["valid"])
	}
}

func ranksAgreeOnAReorderedDigest(t *testing.T, s *system) {
	a := s.activations(t)
	allEqual(t, "activation digest", a, a[0])
	if a[0] == promptsDigest || !strings.HasPrefix(a[0], "256:") {
		t.Fatalf("reordered activations kept the queue-order digest: %s", a[0])
	}
}

func ranksAgreeOnAnAlteredDigest(t *testing.T, s *system) {
	a := s.activations(t)
	allEqual(t, "activation digest", a, a[0])
	if a[0] == promptsDigest {
		t.Fatal("altered prompt kept the digest")
	}
}

// aPreviousLifecycleComesFirst: a log holding an earlier attempt's whole
// lifecycle, then this run's.
func aPreviousLifecycleComesFirst(t *testing.T, s *system) {
	log := s.log(t, "ctx-0.log")
	stale := strings.Index(log, "shutdown_summary rank=0 phase=runtime ready_rounds=1 terminal_votes=1 terminal_commits=1 attempt=previous")
	fresh := strings.Index(log, "mode rank=0 phase=profiling terminal=1 peer_ready=1\n")
	if stale < 0 || fresh < 0 || stale > fresh {
		t.Fatalf("no complete previous lifecycle before this run's (stale at %d, fresh at %d)", stale, fresh)
	}
	allEqual(t, "terminal commits", s.summaries(t, "terminal_commits"), "256")
}

func TestUnknownFaultRefusesToStart(t *testing.T) {
	cmd := exec.Command(os.Args[0], "gen", "--coord", t.TempDir())
	cmd.Env = append(os.Environ(), "DISAGGSIM_AS_MAIN=1", "DISAGGSIM_FAULTS=crash-rank=1 melt")
	out, _ := cmd.CombinedOutput()
	if !bytes.Contains(out, []byte(`unknown fault "melt"`)) {
		t.Fatalf("output %q", out)
	}
}
