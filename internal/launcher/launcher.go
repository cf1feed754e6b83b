// Package launcher starts arm runs, each in a fresh allocation: a process
// session on this machine (launcher/local), a Slurm job (launcher/slurm)
// or a Kubernetes Job (launcher/kubernetes). The Launcher and
// Run interfaces carry their contract in the method comments, and every
// backend passes the shared suite in launcher/launchertest.
package launcher

import (
	"context"

	"github.com/abbench/abbench/internal/rundir"
)

// Spec is one arm run to start.
type Spec struct {
	// ID names the run within its campaign, for example "3-async".
	ID string
	// Dir is the run's directory: the command's working directory, where it
	// writes everything. Start creates it; it must not exist yet, so no run
	// can read another's files (but see Again).
	Dir string
	// Again starts another attempt of the run whose directory Dir holds
	// the earlier ones (abbench run --resume): Dir must be that directory,
	// and everything in it is kept, also when Start fails.
	Again bool
	// Command is the controller to run inside the allocation, usually
	// abbench arm SCENARIO --arm NAME --out DIR.
	Command []string
	// Env is the controller's environment; nil inherits the launcher's.
	Env []string
	// Nodes, when set, are the nodes the run must use (the second run of
	// an abba pair on the nodes of the first); a launcher with no nodes to
	// choose from ignores it.
	Nodes []string
}

// The states of a run: the State of the rundir.Outcome its Wait returns,
// recorded as is in plan.json.
const (
	Running   = "running"
	Succeeded = "succeeded" // the command exited 0
	Failed    = "failed"    // the command exited non-zero, or its allocation failed
	Cancelled = "cancelled" // Cancel ended it
)

// Launcher is an allocation backend.
type Launcher interface {
	// Name is the backend's name as --launcher takes it.
	Name() string
	// Start begins spec in a fresh allocation of its own and returns without
	// waiting for it to end. Nothing is shared between runs but read-only
	// inputs. An error means nothing was started and nothing is left behind.
	Start(ctx context.Context, spec Spec) (Run, error)
}

// Run is one started arm run.
type Run interface {
	// ID is the spec's ID.
	ID() string
	// AllocationID names the allocation (a process id, a Slurm job id).
	AllocationID() string
	// Wait blocks until the run ends and returns how it ended, or returns
	// ctx's error when ctx ends first (the run goes on). It may be called
	// more than once and always returns the same outcome once ended.
	Wait(ctx context.Context) (rundir.Outcome, error)
	// Cancel ends the run: terminate, a bounded grace, then kill. It returns
	// once no process of the allocation is left, and is safe to call more
	// than once and after the run ended.
	Cancel() error
	// Collect returns the local directory holding the run's files. Valid
	// once Wait returned an outcome.
	Collect() (string, error)
}
