package arms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
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
	// Ranks says how ranks start: RanksLocal (default), or RanksSrun, one
	// srun step per role inside the Slurm allocation abbench runs in.
	Ranks string
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
	// slices are the node slices of roles that take nodes of their own (srun).
	slices map[string][]string
	// statusErr is the error of status.json's latest write (nil once one
	// works again); statusFailed says a write failed, and its reason is
	// in the status.
	statusErr    error
	statusFailed bool
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
	if _, ok := s.Arms[arm]; !ok {
		return nil, fmt.Errorf("arm %q is not in scenario %s (arms: %s)", arm, s.Name, strings.Join(s.ArmOrder, ", "))
	}
	if opts.Token == "" {
		opts.Token = NewToken()
	}
	// Ranks run in the run directory: every path they are given must be absolute.
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	opts.Out = out
	if opts.Inherited == nil {
		opts.Inherited = os.Environ()
	}
	c := &controller{s: s, arm: arm, opts: opts, exited: make(chan *rankProc, 4096), ready: map[string]bool{}, self: opts.Self}
	if c.self == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		c.self = exe
	}
	c.wrapper = []string{c.self, "rank-exec", "--"}
	if fast := filepath.Join(filepath.Dir(c.self), "abbench-rank"); isExecutable(fast) {
		c.wrapper = []string{fast, "--"}
	}
	c.dir = rundir.Attempt(opts.Out, opts.Token)
	c.coord = rundir.Coord(c.dir)
	// The registry of live runs is checked before anything is made: one
	// another user could write refuses the run (arms/live.go says why).
	var live *os.Root
	if opts.Ranks != RanksSrun {
		if live, err = openLive(); err != nil {
			return nil, err
		}
		defer func() { _ = live.Close() }() // a directory, read only
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("run directory for token %s: %w", opts.Token, err)
	}
	if live != nil {
		unnote, err := noteLive(live, opts.Token, c.dir)
		if err != nil {
			return nil, err
		}
		defer unnote()
	}
	for _, sub := range []string{rundir.RanksDir, rundir.BarriersDir, rundir.EnvDir, rundir.MachinesDir} {
		if err := os.MkdirAll(filepath.Join(c.coord, sub), 0o755); err != nil {
			return nil, err
		}
	}
	c.ports = scenarios.NewPorts(filepath.Join(c.coord, rundir.PortsFile))
	// The machine the run ran on, for its bundle (a reviewer's first
	// question). Collecting it can take a while (nvidia-smi: tens of
	// milliseconds), so the ranks start meanwhile; the facts stay in
	// memory (Result.Machine). coord/machine.json only names this host, so
	// that a rank wrapper here leaves it to the controller.
	here := machine.Facts{Node: os.Getenv("SLURMD_NODENAME")}
	here.Host, _ = os.Hostname()
	if err := rundir.WriteJSON(filepath.Join(c.coord, rundir.MachineFile), []machine.Facts{here.Redacted()}); err != nil {
		return nil, err
	}
	facts := make(chan machine.Facts, 1) // not waited for when the run cannot start: Collect ends by itself
	go func() { facts <- machine.Collect(5 * time.Second) }()
	if err := makeScratch(s, opts.Token); err != nil {
		return nil, err
	}
	// LATEST names the newest attempt from its start, so progress can be read.
	if err := rundir.WriteLatest(opts.Out, opts.Token); err != nil {
		return nil, err
	}
	c.start = time.Now()
	c.status = &rundir.Status{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: arm, Token: opts.Token, Dir: c.dir,
		State: rundir.StateRunning, Started: c.start.UTC(), Reasons: []reason.Reason{}}
	if c.writeStatus(); c.statusErr != nil {
		return nil, c.statusErr
	}
	// Before any rank starts: nothing of the run outlives the controller,
	// even a SIGKILLed one. Under Slurm (srun ranks) the job's own process
	// tracking stops every process of the job when it ends, and a process
	// that outlives the batch step would hold a requeued job's old
	// instance open.
	if c.opts.Ranks != RanksSrun {
		if err := c.startGuard(); err != nil {
			return nil, fmt.Errorf("starting the run's guard: %w", err)
		}
	}
	if opts.Ranks == "" {
		c.opts.Ranks = RanksLocal
	}
	if c.opts.Ranks == RanksSrun {
		nodes, err := jobNodes()
		if err != nil {
			return nil, err
		}
		if c.slices, err = sliceNodes(s, nodes); err != nil {
			return nil, err
		}
	} else if c.opts.Ranks != RanksLocal {
		return nil, fmt.Errorf("ranks %q: choose %s or %s", c.opts.Ranks, RanksLocal, RanksSrun)
	}
	c.run(ctx)
	res := &Result{Status: c.status, Machine: <-facts}
	res.Machine.ReportedBy = machine.ByController
	if c.statusErr != nil {
		return res, fmt.Errorf("the run ended, but its %s does not say so: %w", rundir.StatusFile, c.statusErr)
	}
	return res, nil
}

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

func (c *controller) fail(r reason.Reason) {
	r.Arm = c.arm
	c.status.Reasons = append(c.status.Reasons, r)
}

func (c *controller) phase(name, detail string) {
	c.status.Phase = name
	c.status.Phases = append(c.status.Phases, rundir.PhaseTime{Name: name, Start: time.Now().UTC()})
	c.writeStatus()
	if c.opts.Progress != nil {
		c.opts.Progress(Event{Arm: c.arm, Token: c.opts.Token, Phase: name, Detail: detail, Elapsed: time.Since(c.start)})
	}
}
