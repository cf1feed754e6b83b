package arms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Options configure one arm run.
type Options struct {
	// Out is the output directory; the run's files go to Out/TOKEN.
	Out string
	// Token is the launch token; empty means NewToken().
	Token string
	// Self is the abbench executable whose rank-exec verb wraps each rank;
	// empty means this process's executable.
	Self string
	// Inherited is the environment ranks may inherit from (BaseKeys only);
	// nil means os.Environ().
	Inherited []string
	// Progress, when set, hears every phase change.
	Progress func(Event)
	// Ranks says how ranks start: RanksLocal (default); RanksSrun, one
	// srun step per role inside the Slurm allocation abbench runs in; or
	// RanksKubernetes, one Indexed Job per role beside the controller's pod.
	Ranks string
	// Docker is the docker client that runs the ranks of roles with
	// container: (default docker, on PATH).
	Docker string
}

// Event is a phase change of a run.
type Event struct {
	Arm, Token, Phase, Detail string
	Elapsed                   time.Duration
}

type controller struct {
	// ranBuild is set once a rank is seen running the arm's build.
	ranBuild bool
	s        *scenarios.Scenario
	arm      string
	opts     Options
	status   *rundir.Status
	dir      string
	coord    string
	ports    *scenarios.Ports // {{.Port "NAME"}}, recorded in coord
	start    time.Time
	procs    []*rankProc
	exited   chan *rankProc
	ready    map[string]bool // role -> all ranks ready
	self     string
	// wrapper starts every rank: abbench-rank beside abbench when it is
	// there (it starts in a millisecond), else abbench rank-exec.
	wrapper  []string
	patterns map[string]*regexp.Regexp // compiled once, by pattern
	buf      []byte                    // the followers' read buffer
	// secrets are the values templates read with env "NAME": abbench
	// writes none of them anywhere.
	secrets redact.Values
	// driver starts the ranks of every role but those with container:
	// (--ranks, drivers.go); containers starts those (nil when the
	// scenario has none).
	driver     ranks.Driver
	containers *containers.Driver
	// statusErr is the error of status.json's latest write (nil once one
	// works again); statusFailed says a write failed, and its reason is
	// in the status.
	statusErr    error
	statusFailed bool
	// since is this controller's start (proctree.StartTime) when its token
	// is its own, else 0: the sweeps read the environments of processes
	// started at or after it only.
	since uint64
	// guardPipe is the write end of the guard's pipe (startGuard): closed
	// once the run ended, or with the controller.
	guardPipe *os.File
	// attached are the addresses the run resolved attached Deployments
	// to, by attached server name (attach_kube.go).
	attached map[string]string
	// podsBefore are the attached Deployments' pods before the client.
	podsBefore map[string][]attachprobe.Pod
	// durable syncs LATEST and offsets.json in the background (durable.go);
	// nil until the first.
	durable *pendingSyncs
}

// errAbort stops the run's phases; the reasons are in the status.
var errAbort = errors.New("run aborted")

// Result is what a run leaves to its caller.
type Result struct {
	Status *rundir.Status
	// Machine is the controller host's facts as the controller collected
	// them. They are handed over in memory, for the bundle: every rank can
	// write coord/, so facts read back from there could be the system
	// under test's.
	Machine machine.Facts
}

// Run runs arm of scenario s in this allocation and returns its status and
// machine. The error is non-nil only when the run could not be set up at
// all; failures of the system under test are reasons in the status.
func Run(ctx context.Context, s *scenarios.Scenario, arm string, opts Options) (*Result, error) {
	c, err := newController(s, arm, opts)
	if err != nil {
		return nil, err
	}
	release, err := c.claimRunDir()
	if err != nil {
		return nil, err
	}
	defer release()
	defer c.closeGuard() // before the claim is released: the run's end is written
	facts, err := c.setUp()
	if err != nil {
		return nil, err
	}
	c.run(ctx)
	res := &Result{Status: c.status, Machine: <-facts}
	res.Machine.ReportedBy = machine.ByController
	if c.statusErr != nil {
		return res, fmt.Errorf("the run ended, but its %s does not say so: %w", rundir.StatusFile, c.statusErr)
	}
	return res, nil
}

// run runs the phases and settles the state the run ends in; finish
// tears down whatever happened.
func (c *controller) run(ctx context.Context) {
	defer c.finish()
	err := c.phases(ctx)
	switch {
	case err == nil:
		c.status.State = rundir.StateSucceeded
	case ctx.Err() != nil:
		c.status.State = rundir.StateInterrupted
		c.fail(reason.New(reason.Interrupted, "abbench was interrupted during phase %s", c.status.Phase))
	default:
		c.status.State = rundir.StateFailed
	}
	if c.status.State == rundir.StateSucceeded && len(c.status.Reasons) > 0 {
		c.status.State = rundir.StateFailed
	}
}

// fail records a reason of this arm.
func (c *controller) fail(r reason.Reason) {
	r.Arm = c.arm
	c.status.Reasons = append(c.status.Reasons, r)
}

// phase enters a phase: recorded in the status, and told to Progress.
func (c *controller) phase(name, detail string) {
	c.status.Phase = name
	c.status.Phases = append(c.status.Phases, rundir.PhaseTime{Name: name, Start: time.Now().UTC()})
	c.writeStatus()
	if c.opts.Progress != nil {
		c.opts.Progress(Event{Arm: c.arm, Token: c.opts.Token, Phase: name, Detail: detail, Elapsed: time.Since(c.start)})
	}
}
