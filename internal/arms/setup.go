package arms

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// newController completes opts for arm of s (a token, an absolute output
// directory, the inherited environment, the rank wrapper); it makes nothing.
func newController(s *scenarios.Scenario, arm string, opts Options) (*controller, error) {
	if _, ok := s.Arms[arm]; !ok {
		return nil, fmt.Errorf("arm %q is not in scenario %s (arms: %s)", arm, s.Name, strings.Join(s.ArmOrder, ", "))
	}
	// A token of its own: only processes started after this controller
	// can carry it, so its sweeps read only their environments.
	var since uint64
	if opts.Token == "" {
		opts.Token, since = NewToken(), proctree.StartTime(os.Getpid())
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
	c := &controller{s: s, arm: arm, opts: opts, exited: make(chan *rankProc, 4096), ready: map[string]bool{}, self: opts.Self, since: since}
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
	if c.containers, err = newContainerDriver(s, c.opts, c.self, c.dir, c.coord); err != nil {
		return nil, err
	}
	if err := checkRoleImages(s, c.opts.Ranks); err != nil {
		return nil, err
	}
	return c, nil
}

// claimRunDir makes the attempt's directory, noted in the registry of live
// runs while the controller runs (srun ranks excepted: the Slurm job
// tracks its processes itself). The registry is checked before anything
// is made: one another user could write refuses the run (arms/live.go
// says why). release removes the note.
func (c *controller) claimRunDir() (release func(), err error) {
	if tracked(c.opts.Ranks) {
		return func() {}, c.makeRunDir()
	}
	live, err := openLive()
	if err != nil {
		return nil, err
	}
	closeLive := func() { _ = live.Close() } // a directory, read only
	if err := c.makeRunDir(); err != nil {
		closeLive()
		return nil, err
	}
	unnote, err := noteLive(live, c.opts.Token, c.dir)
	if err != nil {
		closeLive()
		return nil, err
	}
	return func() { unnote(); closeLive() }, nil
}

// makeRunDir makes the output directory and, new, the attempt's.
func (c *controller) makeRunDir() error {
	if err := os.MkdirAll(c.opts.Out, 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return fmt.Errorf("run directory for token %s: %w", c.opts.Token, err)
	}
	return nil
}

// setUp makes the attempt's namespace, scratch directory and first
// status, starts the guard and places the ranks. The channel gives the
// controller host's machine facts, collected meanwhile.
func (c *controller) setUp() (<-chan machine.Facts, error) {
	for _, sub := range []string{rundir.RanksDir, rundir.BarriersDir, rundir.EnvDir, rundir.MachinesDir} {
		if err := os.MkdirAll(filepath.Join(c.coord, sub), 0o755); err != nil {
			return nil, err
		}
	}
	c.ports = scenarios.NewPorts(filepath.Join(c.coord, rundir.PortsFile))
	facts, err := c.collectMachine()
	if err != nil {
		return nil, err
	}
	if err := makeScratch(c.s, c.opts.Token); err != nil {
		return nil, err
	}
	// LATEST names the newest attempt from its start, so progress can be read.
	if err := rundir.WriteLatest(c.opts.Out, c.opts.Token); err != nil {
		return nil, err
	}
	c.syncLater(rundir.LatestPath(c.opts.Out)) // on disk before the run says it ended (durable.go)
	c.start = time.Now()
	c.status = &rundir.Status{Scenario: c.s.Name, MatchedDigest: c.s.MatchedDigest(), Arm: c.arm, Token: c.opts.Token, Dir: c.dir,
		State: rundir.StateRunning, Started: c.start.UTC(), Reasons: []reason.Reason{}, Ranks: []rundir.RankStatus{}, Containers: c.s.Pinned()}
	if c.writeStatus(); c.statusErr != nil {
		return nil, c.statusErr
	}
	// Before any rank starts: nothing of the run outlives the controller,
	// even a SIGKILLed one. Under Slurm (srun ranks) the job's own process
	// tracking stops every process of the job when it ends, and a process
	// that outlives the batch step would hold a requeued job's old
	// instance open.
	if !tracked(c.opts.Ranks) {
		if err := c.startGuard(); err != nil {
			return nil, fmt.Errorf("starting the run's guard: %w", err)
		}
	}
	return facts, c.placeRanks()
}

// collectMachine starts collecting the machine the run ran on, for its
// bundle (a reviewer's first question). Collecting it can take a while
// (nvidia-smi: tens of milliseconds), so the ranks start meanwhile; the
// facts stay in memory (Result.Machine). coord/machine.json only names
// this host, so that a rank wrapper here leaves it to the controller.
func (c *controller) collectMachine() (<-chan machine.Facts, error) {
	here := machine.Facts{Node: os.Getenv("SLURMD_NODENAME")}
	here.Host, _ = os.Hostname()
	// A coordination file, read by the rank wrappers only: not synced.
	if err := rundir.PublishJSON(filepath.Join(c.coord, rundir.MachineFile), []machine.Facts{here.Redacted()}); err != nil {
		return nil, err
	}
	facts := make(chan machine.Facts, 1) // not waited for when the run cannot start: Collect ends by itself
	go func() { facts <- machine.Collect(5 * time.Second) }()
	return facts, nil
}

// placeRanks makes the run's driver, as --ranks names it (under srun,
// each role that takes nodes of its own gets its slice of the allocation).
func (c *controller) placeRanks() error {
	d, err := rankDriver(c.opts.Ranks)
	if err != nil {
		return err
	}
	c.opts.Ranks = d.Name
	c.driver, err = d.open(c)
	return err
}

// isExecutable says whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// makeScratch creates the run's scratch directory: the controller's own
// (0700), unless a role runs as another user (user:): then every rank must
// be able to write there, as in /tmp (1777: anyone may create, only the
// owner may remove). Running a role as another user needs root.
func makeScratch(s *scenarios.Scenario, token string) error {
	dir, mode := rundir.Scratch(token), os.FileMode(0o700)
	for _, r := range s.Roles {
		if r.User == "" {
			continue
		}
		if os.Geteuid() != 0 {
			return fmt.Errorf("role %s runs as user %s: abbench must run as root to start a rank as another user", r.Name, r.User)
		}
		mode = 0o777 | os.ModeSticky
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("scratch directory: %w", err)
	}
	return os.Chmod(dir, mode)
}
