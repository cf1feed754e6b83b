// Package local is the rank driver that starts each rank as a process of
// this host, in a process group of its own (--ranks local, the default).
// Its Proc is also how other drivers run the one local process that
// stands for a rank (a container's attached client).
package local

import (
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/deathsig"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// Name is the driver's name, as --ranks takes it.
const Name = "local"

// Driver starts ranks as processes of this host.
type Driver struct {
	// Dir is the ranks' working directory (the run's directory).
	Dir string
	// Wrapper is the rank wrapper's argv, put before each rank's command.
	Wrapper []string

	mu    sync.Mutex
	procs []*Proc
}

func (d *Driver) Name() string { return Name }

// Remote is false: every rank is a process of this host.
func (d *Driver) Remote() bool { return false }

// Start starts the ranks from every core (ranks.StartEach).
func (d *Driver) Start(_ *scenarios.Role, rs []*ranks.Rank) error {
	ranks.StartEach(rs, func(r *ranks.Rank) error {
		p, err := Start(r, append(slices.Clone(d.Wrapper), r.Argv...), r.Env, d.Dir, false)
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.procs = append(d.procs, p)
		d.mu.Unlock()
		return nil
	})
	return nil
}

// Stop sends SIGTERM to every rank's group, waits up to grace, then
// SIGKILLs what is left and waits for it (bounded by limit).
func (d *Driver) Stop(grace, limit time.Duration) []reason.Reason {
	d.mu.Lock()
	procs := slices.Clone(d.procs)
	d.mu.Unlock()
	StopAll(procs, grace, limit)
	return nil
}

// Proc is one process that stands for a rank: its own process group,
// output appended to the rank's log.
type Proc struct {
	Rank *ranks.Rank
	cmd  *exec.Cmd
}

// Start starts argv as the process of rank r in dir, in a process group
// of its own, killed with this process, and ends r with its exit
// (ranks.ExitOf, statusSignals as there) once it ended.
func Start(r *ranks.Rank, argv, env []string, dir string, statusSignals bool) (*Proc, error) {
	f, err := r.OpenLog()
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // the rank writes the log through its own descriptor; this one wrote nothing
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, f, f
	// Its own process group, so teardown signals the rank and its children;
	// and killed with the controller, so nothing outlives a crashed controller.
	cmd.SysProcAttr = deathsig.With(&syscall.SysProcAttr{Setpgid: true}, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r.SetPID(cmd.Process.Pid)
	go func() {
		// How it ended is in ProcessState (a rank's non-zero exit is
		// reported from there); Wait's error says the same again.
		_ = cmd.Wait()
		r.End(ranks.ExitOf(cmd.ProcessState, statusSignals))
	}()
	return &Proc{Rank: r, cmd: cmd}, nil
}

// SignalGroup signals the process's group.
func (p *Proc) SignalGroup(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig) // a group already gone has nothing to signal
}

// StopAll sends SIGTERM to every process's group, waits up to grace,
// then SIGKILLs what is left (marking its rank killed) and waits for it
// (bounded by limit).
func StopAll(procs []*Proc, grace, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for _, p := range procs {
		if !p.Rank.Ended() {
			p.SignalGroup(syscall.SIGTERM)
		}
	}
	graceEnd := time.Now().Add(min(grace, limit))
	for _, p := range procs {
		select {
		case <-p.Rank.Done():
		case <-time.After(time.Until(graceEnd)):
		}
	}
	for _, p := range procs {
		if !p.Rank.Ended() {
			p.Rank.Kill()
		}
		// Kill the group even when the leader exited: its children may not have.
		p.SignalGroup(syscall.SIGKILL)
	}
	for _, p := range procs {
		select {
		case <-p.Rank.Done():
		case <-time.After(max(time.Until(deadline), time.Second)):
		}
	}
}
