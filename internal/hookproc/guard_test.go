package hookproc

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets this test binary be a hook's guard (hook-guard TOKEN
// SECONDS) and a caller SIGKILLed while its hook runs (hook-caller DIR).
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == "hook-guard" {
		if err := GuardMain(os.Stdin, os.Args[2], os.Args[3]); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	if len(os.Args) == 3 && os.Args[1] == "hook-caller" {
		dir := os.Args[2]
		RunGuarded(context.Background(), testGuard(), []string{"sh", "-c", pidsHook}, nil, dir, filepath.Join(dir, "hook.log"), time.Minute, time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testGuard() *Guard { return &Guard{Program: os.Args[0], Args: []string{"hook-guard"}} }

// pidsHook leaves a sleep in its group and a daemon in a session of its
// own, writing their pids, the daemon's last.
const pidsHook = `echo $$ > leader; sleep 300 & echo $! > sleeper; setsid sleep 301 & echo $! > daemon.tmp; mv daemon.tmp daemon; wait`

// alive says whether pid is a process that has not ended (a zombie ended).
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, after, _ := bytes.Cut(stat, []byte(") "))
	return len(after) > 0 && after[0] != 'Z'
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitFor polls cond every 20 ms, at most d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// A caller SIGKILLed while its guarded hook runs leaves nothing of the
// hook: its leader, what it started in its group, and a daemon that left
// the group (found by the token) are all gone within the guard's sweep.
func TestGuardKillsTheHookWhenItsCallerDies(t *testing.T) {
	dir := t.TempDir()
	caller := exec.Command(os.Args[0], "hook-caller", dir)
	if err := caller.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { _, err := os.Stat(filepath.Join(dir, "daemon")); return err == nil }) {
		_ = caller.Process.Kill()
		t.Fatal("the hook never started its daemon")
	}
	pids := []int{readPid(t, filepath.Join(dir, "leader")), readPid(t, filepath.Join(dir, "sleeper")), readPid(t, filepath.Join(dir, "daemon"))}
	if err := caller.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = caller.Wait() // killed: that is the point
	var left []int
	if !waitFor(guardSweep+5*time.Second, func() bool {
		left = left[:0]
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	}) {
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("processes %v of the hook (leader, sleep, daemon: %v) outlived its SIGKILLed caller", left, pids)
	}
}

// A guarded hook that ended leaves what it started alone (a before_all
// hook may start what the campaign uses), its guard gone, and the hook
// saw its token.
func TestGuardOfAnEndedHookLeavesItsDaemon(t *testing.T) {
	dir := t.TempDir()
	res := RunGuarded(context.Background(), testGuard(), []string{"sh", "-c", `setsid sleep 30 & echo $! > daemon; echo "$ABBENCH_TOKEN" > token`}, nil, dir, filepath.Join(dir, "hook.log"), 10*time.Second, time.Second)
	if !res.OK() {
		t.Fatalf("hook: %+v", res)
	}
	daemon := readPid(t, filepath.Join(dir, "daemon"))
	defer func() { _ = syscall.Kill(daemon, syscall.SIGKILL) }()
	if !alive(daemon) {
		t.Error("the daemon of a hook that ended was killed")
	}
	if token, _ := os.ReadFile(filepath.Join(dir, "token")); !strings.HasPrefix(string(token), "hook-") {
		t.Errorf("the hook's ABBENCH_TOKEN %q, want its guard's token", token)
	}
}

// A guard that cannot be started runs no hook: a hook nothing would stop
// after abbench died is not started.
func TestUnstartableGuardRunsNoHook(t *testing.T) {
	dir := t.TempDir()
	res := RunGuarded(context.Background(), &Guard{Program: filepath.Join(dir, "missing")}, []string{"touch", filepath.Join(dir, "ran")}, nil, dir, filepath.Join(dir, "hook.log"), 10*time.Second, time.Second)
	if res.OK() || res.Err == nil || !strings.Contains(res.Err.Error(), "its guard") {
		t.Errorf("hook under a missing guard: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the hook ran without its guard")
	}
}
