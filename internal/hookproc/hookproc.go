// Package hookproc runs one hook command of a scenario (setup, teardown,
// before_all, after_all): in a process group of its own that dies with
// abbench, its output appended to its log, bounded by its deadline.
package hookproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/deathsig"
)

// Result is how a hook ended.
type Result struct {
	Started, Ended time.Time
	// ExitCode is the hook's exit status; -1 when a signal ended it or it
	// never started.
	ExitCode int
	// TimedOut says the hook outlived its deadline and was stopped.
	TimedOut bool
	// Stopped says ctx ended while the hook ran, and it was stopped.
	Stopped bool
	// Err says why the hook could not be started (its log, its command).
	Err error
}

// OK says the hook ran and exited 0.
func (r Result) OK() bool { return r.Err == nil && !r.TimedOut && !r.Stopped && r.ExitCode == 0 }

// Why says how a hook that is not OK ended, for a reason's detail.
func (r Result) Why(deadline time.Duration) string {
	switch {
	case r.Err != nil && (r.TimedOut || r.Stopped):
		return "was stopped, but " + r.Err.Error()
	case r.Err != nil:
		return "could not be started: " + r.Err.Error()
	case r.TimedOut:
		return fmt.Sprintf("did not end within its deadline %s and was stopped", deadline)
	case r.Stopped:
		return "was stopped: abbench was interrupted"
	case r.ExitCode < 0:
		return "was ended by a signal"
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// Run runs argv in dir with env (nil: none), its stdout and stderr
// appended to log (made, with its directory). Past deadline, or when ctx
// ends, the hook's process group gets SIGTERM, then SIGKILL after grace;
// Run returns once the hook is gone (a child that left its group is its
// caller's to sweep).
func Run(ctx context.Context, argv, env []string, dir, log string, deadline, grace time.Duration) Result {
	return RunGuarded(ctx, nil, argv, env, dir, log, deadline, grace)
}

// RunGuarded is Run under guard (nil: none) for a hook whose caller no
// guard of its own outlives: the hook gets a token of its own in its
// environment, and the guard kills its group and whatever carries the
// token when abbench dies while it runs, even by SIGKILL.
func RunGuarded(ctx context.Context, guard *Guard, argv, env []string, dir, log string, deadline, grace time.Duration) (res Result) {
	res = Result{ExitCode: -1, Started: time.Now()}
	// A named result, so that the end time set on the way out is the one
	// returned (a deferred write to a local is lost once it is copied out).
	defer func() { res.Ended = time.Now() }()
	if len(argv) == 0 {
		res.Err = errors.New("empty command")
		return res
	}
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		res.Err = err
		return res
	}
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		res.Err = err
		return res
	}
	defer func() { _ = f.Close() }() // the hook wrote through its own descriptor; this one wrote nothing
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, f, f
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	var wt *watch
	if guard != nil {
		// Started before the hook, so that no moment of the hook is
		// unguarded; it learns the hook's group once there is one.
		if wt, res.Err = guarded(cmd, guard, env, deadline+grace+killWait); res.Err != nil {
			return res
		}
		defer wt.done()
	}
	if err := cmd.Start(); err != nil {
		res.Err = err
		return res
	}
	if wt != nil {
		wt.group(cmd.Process.Pid) // its own group: Setpgid
	}
	done := make(chan struct{})
	go func() {
		// How it ended is in ProcessState.
		_ = cmd.Wait()
		close(done)
	}()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		res.TimedOut = true
		res.Err = stop(cmd, done, grace)
	case <-ctx.Done():
		res.Stopped = true
		res.Err = stop(cmd, done, grace)
	}
	if res.Err == nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	return res
}

// killWait bounds the wait for a SIGKILLed hook to be gone.
const killWait = 10 * time.Second

// stop sends the hook's group SIGTERM, then SIGKILL after grace, and
// waits for the hook to be gone (at most killWait after the SIGKILL).
func stop(cmd *exec.Cmd, done <-chan struct{}, grace time.Duration) error {
	pgid := cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM) // gone already: nothing to stop
	select {
	case <-done:
	case <-time.After(grace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // its children too, even when it exited
	select {
	case <-done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("pid %d did not end %s after SIGKILL", pgid, killWait)
	}
}
