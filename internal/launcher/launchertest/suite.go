// Package launchertest is the test suite every launcher backend must pass.
package launchertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// Backend describes the backend under test.
type Backend struct {
	Launcher launcher.Launcher
	// Alive reports the live processes of a run's allocation, to check that
	// Cancel leaves none.
	Alive func(r launcher.Run) []int
	// Timeout bounds each wait (schedulers are slower than processes).
	Timeout time.Duration
}

// Run runs the suite. dir is a fresh directory on storage the backend's
// allocations share.
func Run(t *testing.T, b Backend, dir string) {
	if b.Timeout == 0 {
		b.Timeout = 30 * time.Second
	}
	s := &suite{Backend: b, dir: dir}
	t.Run("succeeds in its own directory", s.succeedsInItsOwnDirectory)
	t.Run("reports failure with the exit status", s.reportsFailureWithTheExitStatus)
	t.Run("separate allocations and directories", s.separateAllocationsAndDirectories)
	t.Run("wait honours its context", s.waitHonoursItsContext)
	t.Run("cancel leaves no process", s.cancelLeavesNoProcess)
	t.Run("another attempt keeps the earlier ones", s.againKeepsTheEarlierAttempts)
}

// suite is the backend under test and the directory its runs go to.
type suite struct {
	Backend
	dir string
}

// start starts script as run id, cancelled when the test ends.
func (s *suite) start(t *testing.T, id, script string) launcher.Run {
	t.Helper()
	r, err := s.Launcher.Start(context.Background(), launcher.Spec{ID: id, Dir: filepath.Join(s.dir, id), Command: []string{"/bin/sh", "-c", script}})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Cancel(); err != nil {
			t.Errorf("Cancel: %v", err)
		}
	})
	return r
}

// wait waits for r to end, at most the backend's timeout.
func (s *suite) wait(t *testing.T, r launcher.Run) rundir.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return res
}

func (s *suite) succeedsInItsOwnDirectory(t *testing.T) {
	r := s.start(t, "ok", `pwd > where; exit 0`)
	res := s.wait(t, r)
	if res.State != launcher.Succeeded || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	got, err := r.Collect()
	if err != nil {
		t.Fatal(err)
	}
	where, _ := os.ReadFile(filepath.Join(got, "where"))
	if want, _ := filepath.EvalSymlinks(filepath.Join(s.dir, "ok")); strings.TrimSpace(string(where)) != want {
		t.Fatalf("ran in %q, want %q", where, want)
	}
	if again := s.wait(t, r); again != res {
		t.Fatalf("second Wait gave %+v, first %+v", again, res)
	}
}

func (s *suite) reportsFailureWithTheExitStatus(t *testing.T) {
	res := s.wait(t, s.start(t, "fail", `exit 3`))
	if res.State != launcher.Failed || res.ExitCode != 3 {
		t.Fatalf("result %+v, want failed with 3", res)
	}
}

func (s *suite) separateAllocationsAndDirectories(t *testing.T) {
	a, b := s.start(t, "a", `exit 0`), s.start(t, "b", `exit 0`)
	if a.AllocationID() == b.AllocationID() {
		t.Fatalf("two runs share allocation %s", a.AllocationID())
	}
	if _, err := s.Launcher.Start(context.Background(), launcher.Spec{ID: "a", Dir: filepath.Join(s.dir, "a"), Command: []string{"/bin/true"}}); err == nil {
		t.Fatal("a second run into an existing directory was started")
	}
}

func (s *suite) waitHonoursItsContext(t *testing.T) {
	r := s.start(t, "slow", `sleep 30`)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.Wait(ctx); err == nil {
		t.Fatal("Wait returned a result for a running run")
	}
}

func (s *suite) cancelLeavesNoProcess(t *testing.T) {
	// A process that ignores SIGTERM, and a child that left the process group.
	r := s.start(t, "stubborn", `trap '' TERM; setsid sleep 300 & sleep 300 & echo started > started; wait`)
	deadline := time.Now().Add(s.Timeout)
	for {
		if _, err := os.Stat(filepath.Join(s.dir, "stubborn", "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("run never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	res := s.wait(t, r)
	if res.State != launcher.Cancelled {
		t.Fatalf("state %s after Cancel", res.State)
	}
	if s.Alive != nil {
		if left := s.Alive(r); len(left) > 0 {
			t.Fatalf("processes %v of the allocation survived Cancel", left)
		}
	}
	if err := r.Cancel(); err != nil {
		t.Fatalf("second Cancel: %v", err)
	}
}

// againKeepsTheEarlierAttempts starts a run Again in the directory of its
// earlier attempt: it runs there, and the earlier files stay; Again
// without that directory starts nothing.
func (s *suite) againKeepsTheEarlierAttempts(t *testing.T) {
	dir := filepath.Join(s.dir, "again")
	if err := os.MkdirAll(filepath.Join(dir, "earlier"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := s.Launcher.Start(context.Background(), launcher.Spec{ID: "again", Dir: dir, Again: true, Command: []string{"/bin/sh", "-c", "ls > seen"}})
	if err != nil {
		t.Fatalf("Start again: %v", err)
	}
	if res := s.wait(t, r); res.State != launcher.Succeeded {
		t.Fatalf("result %+v", res)
	}
	seen, err := os.ReadFile(filepath.Join(dir, "seen"))
	if err != nil || !strings.Contains(string(seen), "earlier") {
		t.Fatalf("the attempt ran elsewhere, or the earlier one is gone: saw %q (%v)", seen, err)
	}
	gone := filepath.Join(s.dir, "gone")
	if _, err := s.Launcher.Start(context.Background(), launcher.Spec{ID: "gone", Dir: gone, Again: true, Command: []string{"/bin/true"}}); err == nil {
		t.Fatal("another attempt of a run whose directory is gone was started")
	}
	if _, err := os.Stat(gone); err == nil {
		t.Fatal("another attempt of a run whose directory is gone made it anew")
	}
}
