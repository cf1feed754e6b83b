package hookproc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A hook's output goes to its log, appended; its exit status is said; a
// hook past its deadline is stopped, one that ignores SIGTERM killed after
// the grace; a hook that cannot start says why.
func TestRunEndsEveryHook(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "hooks", "setup-0.log")
	ok := Run(context.Background(), []string{"sh", "-c", "echo clocks locked=1400"}, nil, dir, log, 5*time.Second, time.Second)
	if !ok.OK() {
		t.Fatalf("a hook that exits 0: %+v", ok)
	}
	failed := Run(context.Background(), []string{"sh", "-c", "echo no permission; exit 4"}, nil, dir, log, 5*time.Second, time.Second)
	if failed.OK() || failed.ExitCode != 4 || failed.Why(time.Second) != "exited with status 4" {
		t.Errorf("a hook that exits 4: %+v, %s", failed, failed.Why(time.Second))
	}
	data, _ := os.ReadFile(log)
	if string(data) != "clocks locked=1400\nno permission\n" {
		t.Errorf("log %q: want both hooks' output, appended", data)
	}
	start := time.Now()
	stubborn := Run(context.Background(), []string{"sh", "-c", "trap '' TERM; sleep 30"}, nil, dir, log, 200*time.Millisecond, 300*time.Millisecond)
	if !stubborn.TimedOut || stubborn.OK() || !strings.Contains(stubborn.Why(200*time.Millisecond), "within its deadline 200ms") {
		t.Errorf("a hook past its deadline: %+v", stubborn)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping a hook that ignores SIGTERM took %s", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if r := Run(ctx, []string{"sleep", "30"}, nil, dir, log, time.Minute, time.Second); !r.Stopped || r.OK() {
		t.Errorf("a hook whose context ended: %+v", r)
	}
	if r := Run(context.Background(), []string{filepath.Join(dir, "no-such-hook")}, nil, dir, log, time.Second, time.Second); r.Err == nil || !strings.HasPrefix(r.Why(time.Second), "could not be started: ") {
		t.Errorf("a hook that does not exist: %+v", r)
	}
}

// Every way a hook ends says when it ended, no earlier than it started:
// a hook's record and its reason's detail carry both times.
func TestRunSaysWhenEachHookEnded(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "setup-0.log")
	for name, res := range map[string]Result{
		"exits 0":               Run(context.Background(), []string{"sh", "-c", "sleep 0.05"}, nil, dir, log, 5*time.Second, time.Second),
		"exits 3":               Run(context.Background(), []string{"sh", "-c", "exit 3"}, nil, dir, log, 5*time.Second, time.Second),
		"cannot start":          Run(context.Background(), []string{filepath.Join(dir, "no-such-hook")}, nil, dir, log, time.Second, time.Second),
		"has no command":        Run(context.Background(), nil, nil, dir, log, time.Second, time.Second),
		"outlives its deadline": Run(context.Background(), []string{"sleep", "30"}, nil, dir, log, 50*time.Millisecond, 50*time.Millisecond),
	} {
		if res.Ended.IsZero() || res.Ended.Before(res.Started) {
			t.Errorf("a hook that %s: started %s, ended %s", name, res.Started, res.Ended)
		}
	}
}
