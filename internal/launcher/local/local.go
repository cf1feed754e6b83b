// Package local is the launcher backend that runs each arm run as its own
// process session on this machine, optionally pinned to a CPU list.
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/rundir"
)

// EnvAllocation marks every process of a local allocation, so that one
// which leaves the session (setsid) is still found and killed.
const EnvAllocation = "ABBENCH_ALLOCATION"

// Launcher runs each spec in a new process session.
type Launcher struct {
	// CPUs, when set, pins every run to this CPU list (taskset -c).
	CPUs string
	// Grace is how long Cancel waits after SIGTERM before SIGKILL.
	Grace time.Duration
}

var _ launcher.Launcher = (*Launcher)(nil)

// Name implements launcher.Launcher.
func (l *Launcher) Name() string { return "local" }

// Start implements launcher.Launcher.
func (l *Launcher) Start(ctx context.Context, spec launcher.Spec) (launcher.Run, error) {
	if len(spec.Command) == 0 {
		return nil, errors.New("local launcher: empty command")
	}
	if err := launcher.MakeDir(spec); err != nil {
		return nil, fmt.Errorf("local launcher: run directory: %w", err)
	}
	argv := spec.Command
	if l.CPUs != "" {
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("local launcher: pinning to CPUs %s needs taskset (util-linux): %w", l.CPUs, err)
		}
		argv = append([]string{taskset, "-c", l.CPUs}, argv...)
	}
	logf, err := os.OpenFile(filepath.Join(spec.Dir, rundir.ControllerLog), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer func() { _ = logf.Close() }() // the controller writes the log through its own descriptor; this one wrote nothing
	marker := launcher.NewMarker()
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = spec.Dir, logf, logf
	cmd.Env = append(slices.Clone(env), EnvAllocation+"="+marker)
	// A session of its own: its process group is the allocation.
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setsid: true}, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		launcher.RemoveMade(spec) // the run never started: what stays is its directory, and the error says why
		return nil, fmt.Errorf("local launcher: starting %s: %w", argv[0], err)
	}
	grace := l.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	r := &run{spec: spec, cmd: cmd, marker: marker, grace: grace, Ending: launcher.NewEnding(), started: time.Now(), since: proctree.StartTime(cmd.Process.Pid)}
	go r.wait()
	return r, nil
}

type run struct {
	*launcher.Ending // the outcome, Wait and Done
	spec             launcher.Spec
	cmd              *exec.Cmd
	marker           string
	since            uint64 // the leader's start (proctree.StartTime): no process of the run started before
	grace            time.Duration
	started          time.Time
	mu               sync.Mutex
	cancelled        bool
}

func (r *run) wait() {
	err := r.cmd.Wait()
	// The leader is gone; anything it left in its session goes too (ranks
	// run in process groups of their own, but never leave the session).
	r.killAllocation()
	r.mu.Lock()
	defer r.mu.Unlock()
	res := rundir.Outcome{AllocationID: r.AllocationID(), Started: r.started, Ended: time.Now(), ExitCode: r.cmd.ProcessState.ExitCode()}
	switch {
	case r.cancelled:
		res.State, res.Detail = launcher.Cancelled, "cancelled"
	case err == nil:
		res.State = launcher.Succeeded
	default:
		res.State, res.Detail = launcher.Failed, failureDetail(err)
	}
	r.End(res)
}

// failureDetail is what a failed run's outcome says beyond its exit code:
// nothing for a leader that exited with a code of its own (ExitCode holds
// it, and a summary shows a detail only where it adds something), the
// signal or the error that ended it otherwise.
func failureDetail(err error) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Exited() {
		return ""
	}
	return err.Error()
}

func (r *run) ID() string           { return r.spec.ID }
func (r *run) AllocationID() string { return fmt.Sprintf("local-%d", r.cmd.Process.Pid) }

func (r *run) Cancel() error {
	r.mu.Lock()
	select {
	case <-r.Done():
		r.mu.Unlock()
		return nil
	default:
	}
	r.cancelled = true
	r.mu.Unlock()
	pgid := r.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-r.Done():
		return nil
	case <-time.After(r.grace):
	}
	r.killAllocation()
	select {
	case <-r.Done():
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("local launcher: run %s (pid %d) did not end 10s after SIGKILL", r.spec.ID, pgid)
	}
}

func (r *run) Collect() (string, error) {
	return r.Collected(r.spec.Dir, "local launcher: run "+r.spec.ID)
}

// killAllocation sends SIGKILL to the session and to every process that
// carries the allocation's marker, wherever it went.
func (r *run) killAllocation() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	// SIGKILL is delivered asynchronously: on a loaded machine a process
	// signalled here may still be listed a moment later. Kill until none
	// is (bounded), so that Cancel returns with nothing of the run alive.
	for deadline := time.Now().Add(killSettle); ; time.Sleep(10 * time.Millisecond) {
		left := Alive(r)
		if len(left) == 0 || time.Now().After(deadline) {
			return
		}
		proctree.Kill(left)
	}
}

// killSettle bounds how long killAllocation waits for SIGKILLed processes
// to be gone.
const killSettle = 5 * time.Second

// Alive lists the live processes of the run's allocation.
func Alive(r launcher.Run) []int {
	lr, ok := r.(*run)
	if !ok {
		return nil
	}
	return proctree.Allocation(lr.cmd.Process.Pid, lr.since, EnvAllocation, lr.marker)
}
