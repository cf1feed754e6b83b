package arms

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/abbench/abbench/arms/rankwrap"
	"github.com/abbench/abbench/rundir"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/reason"
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

func (c *controller) writeStatus() {
	// Reasons quote commands, values and errors: no secret value the
	// templates read, and no URL's password, is written in clear.
	for i := range c.status.Reasons {
		c.status.Reasons[i].Detail = c.secrets.In(c.status.Reasons[i].Detail)
	}
	c.status.Ranks = c.status.Ranks[:0]
	for _, p := range c.procs {
		rs := rundir.RankStatus{Role: p.role, Rank: p.rank, Log: p.log, Offset: p.offset, Inode: p.inode, Killed: p.killed, Exited: p.exited()}
		if p.cmd != nil && p.cmd.Process != nil {
			rs.PID = p.cmd.Process.Pid
		}
		rs.ExitCode = -1
		if rs.Exited {
			rs.ExitCode = p.exitCode()
		}
		if rel, err := filepath.Rel(c.dir, p.log); err == nil {
			rs.Log = rel
		}
		c.status.Ranks = append(c.status.Ranks, rs)
	}
	c.statusErr = rundir.WriteStatus(c.dir, c.status)
	if c.statusErr != nil && !c.statusFailed {
		// Kept in memory: the next write that works records it.
		c.statusFailed = true
		c.fail(reason.New(reason.WriteFailed, "during phase %s: %v: an attempt killed then would not say how far it got", c.status.Phase, c.statusErr))
	}
}

// finish tears everything down, whatever happened, and writes the status.
func (c *controller) finish() {
	if c.status.Phase != "teardown" {
		c.phase("teardown", "stopping every rank")
		if c.status.State != rundir.StateSucceeded {
			c.abortFile()
		}
		c.stopAll()
	}
	if err := os.RemoveAll(rundir.LaunchDirOf(c.coord)); err != nil {
		c.fail(reason.New(reason.WriteFailed, "removing the ranks' launch files (their argv and environment, mode 0600): %v: remove them by hand", err))
	}
	c.status.Swept = sweep(c.opts.Token)
	// Every rank is gone: nothing writes there any more. What a failed
	// removal leaves is a directory of the temporary directory named by
	// the token, which nothing reads.
	_ = os.RemoveAll(rundir.Scratch(c.opts.Token))
	// A process just sent SIGKILL is not gone at once: only one still alive
	// after a bounded wait survived. A daemon a rank left behind and the
	// sweep killed is recorded (swept_processes), not censored: nothing of
	// it outlives the run.
	if left := survivorsAfter(c.opts.Token, sweepWait); len(left) > 0 {
		c.fail(reason.New(reason.UncleanShutdown, "processes %v of the run survived SIGKILL for %s", left, sweepWait))
		c.status.State = rundir.StateFailed
	}
	c.status.Ended = time.Now().UTC()
	c.phase("done", c.status.State)
}

// redactArgv is argv as records may show it.
func redactArgv(argv []string, secrets redact.Values) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = secrets.In(a)
	}
	return out
}

func (c *controller) abortFile() {
	data, _ := json.Marshal(c.status.Reasons)
	if err := atomicfile.WriteFile(filepath.Join(c.coord, rundir.AbortFile), data, 0o644); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the abort record: %v", err))
	}
}

func (c *controller) data(role *scenarios.Role, rank int) scenarios.TemplateData {
	host, _ := os.Hostname()
	return c.s.TemplateData(scenarios.Place{Arm: c.arm, Token: c.opts.Token, Out: c.dir, Role: role, Rank: rank, Host: host, Ports: c.ports})
}

// startOrder lists roles in start waves: a role starts once the roles it
// waits on are ready. Clients come last.
func (c *controller) deps(r *scenarios.Role) []string {
	deps := slices.Clone(r.After)
	if r.AfterReady {
		for _, o := range c.s.Roles {
			if !o.AfterReady && o.Name != r.Name {
				deps = append(deps, o.Name)
			}
		}
	}
	return deps
}

func (c *controller) phases(ctx context.Context) error {
	s := c.s
	c.phase("start", "starting roles")
	if err := c.hashBuilds(); err != nil {
		c.fail(reason.New(reason.LaunchFailed, "%v", err))
		return errAbort
	}
	var inherited []string
	var clients []*scenarios.Role
	readyCtx, cancel := context.WithTimeout(ctx, time.Duration(s.Deadlines.Ready))
	defer cancel()
	started := map[string]bool{}
	for len(started)+len(clients) < len(s.Roles) {
		progressed := false
		for i := range s.Roles {
			r := &s.Roles[i]
			if started[r.Name] || slices.Contains(clients, r) {
				continue
			}
			if !c.allReady(c.deps(r)) {
				continue
			}
			if r.Client {
				clients = append(clients, r)
				progressed = true
				continue
			}
			kept, err := c.startRole(r)
			if err != nil {
				return err
			}
			inherited = kept
			started[r.Name] = true
			progressed = true
		}
		if !progressed {
			if err := c.waitReadyOnce(readyCtx, started); err != nil {
				return err
			}
		}
	}
	c.status.Inherited = inherited
	for name := range started {
		if err := c.waitRoleReady(readyCtx, s.Role(name)); err != nil {
			return err
		}
	}
	c.phase("check", "checking registrations and modes before any client traffic")
	if err := c.checkArm("before the client"); err != nil {
		return err
	}
	if err := c.writeOffsets(); err != nil {
		return err
	}
	if len(clients) > 0 {
		if err := c.runClients(ctx, clients); err != nil {
			return err
		}
		c.phase("drain", "waiting for logs to settle")
		c.drain(ctx)
	} else {
		if err := c.waitAllExit(ctx); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.phase("teardown", "checking modes, then stopping every rank")
	tdCtx, cancel2 := context.WithTimeout(ctx, time.Duration(s.Deadlines.Teardown))
	defer cancel2()
	if err := c.checkModes("at teardown"); err != nil {
		c.fail(reasonOf(err))
	}
	c.status.Reasons = append(c.status.Reasons, c.checkRegistrations("by the client", true)...)
	if len(c.status.Builds) > 0 && !c.ranBuild {
		c.fail(reason.New(reason.BuildMismatch, "no rank ran arm %s's build %s: start the system under test as {{.Build}} in its role's command", c.arm, c.ownBuild().Binary))
	}
	b := NewBarrier(c.coord, "teardown", "controller-0")
	if err := b.Arrive("controller-0"); err != nil {
		c.fail(reason.New(reason.WriteFailed, "arriving at the teardown barrier: %v", err))
	} else if err := b.Wait(tdCtx); err != nil {
		c.fail(reason.New(reason.DeadlineExceeded, "%v", err))
	}
	c.stopAll()
	for _, p := range c.procs {
		if p.client && len(clients) > 0 {
			continue // the client ended on its own; checked in runClients
		}
		if p.killed {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d ignored SIGTERM for %s and was killed", p.role, p.rank, s.Deadlines.KillGrace).At(c.arm, p.role, p.rank))
		} else if !p.cleanStop() {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d %s at teardown", p.role, p.rank, p.howEnded()).At(c.arm, p.role, p.rank))
		}
	}
	return nil
}

// stopAll stops local ranks and srun steps alike.
func (c *controller) stopAll() {
	grace, limit := time.Duration(c.s.Deadlines.KillGrace), time.Duration(c.s.Deadlines.Teardown)
	stopAll(c.procs, grace, limit)
	c.stopSteps(grace, limit)
}

func reasonOf(err error) reason.Reason {
	var re *reason.Error
	if errors.As(err, &re) && len(re.Reasons) > 0 {
		return re.Reasons[0]
	}
	return reason.New(reason.ArmModeMismatch, "%v", err)
}

func (c *controller) allReady(roles []string) bool {
	for _, r := range roles {
		if !c.ready[r] {
			return false
		}
	}
	return true
}

func (c *controller) startRole(r *scenarios.Role) ([]string, error) {
	// Ranks are prepared and started from every core: with thousands of
	// ranks, one after another cost seconds (templates, environment,
	// records, fork), while a shell starting the same processes took one.
	known := slices.Clone(c.secrets)
	preps := make([]rankLaunch, r.Ranks)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), r.Ranks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rank := range next {
				lp := c.prepareRank(r, rank, known)
				if lp.err == nil && c.opts.Ranks != RanksSrun {
					lp.startErr = startRank(lp.p, c.wrapper, lp.argv, lp.env, c.dir, c.exited)
				}
				preps[rank] = lp
			}
		}()
	}
	for rank := range r.Ranks {
		next <- rank
	}
	close(next)
	wg.Wait()
	var (
		kept      []string
		stepRanks []*rankProc
		launches  []rundir.Launch
		failed    error
	)
	for rank, lp := range preps {
		for _, v := range lp.secrets {
			c.secrets.Add(v)
		}
		switch {
		case lp.err != nil:
			failed = cmp.Or(failed, lp.err)
			continue
		case c.opts.Ranks == RanksSrun:
			if err := lp.p.openLog(); err != nil {
				failed = cmp.Or(failed, err)
				continue
			}
			stepRanks = append(stepRanks, lp.p)
			launches = append(launches, rundir.Launch{Argv: lp.argv, Env: lp.env, Log: lp.p.log})
		case lp.startErr != nil:
			if failed == nil {
				c.fail(reason.New(reason.LaunchFailed, "starting %s rank %d: %v", r.Name, rank, lp.startErr).At(c.arm, r.Name, rank))
				failed = errAbort
			}
			continue
		}
		kept = lp.kept
		c.procs = append(c.procs, lp.p) // every started rank, so teardown stops it
	}
	if failed != nil {
		return nil, failed
	}
	if len(stepRanks) > 0 {
		if err := c.startStep(r, stepRanks, launches); err != nil {
			c.fail(reason.New(reason.LaunchFailed, "starting role %s as an srun step: %v", r.Name, err))
			return nil, errAbort
		}
	}
	c.writeStatus()
	return kept, nil
}

// rankLaunch is one rank prepared (and, locally, started) by startRole.
type rankLaunch struct {
	p         *rankProc
	argv, env []string
	kept      []string
	secrets   redact.Values // the values its templates read with env
	err       error         // preparing it failed
	startErr  error         // starting it failed
}

// prepareRank expands a rank's command, log and environment and records
// what it is given (secrets redacted by name and by value, known ones and
// those its own templates read).
func (c *controller) prepareRank(r *scenarios.Role, rank int, known redact.Values) (lp rankLaunch) {
	lp.secrets = slices.Clone(known)
	d := c.data(r, rank)
	lp.argv = make([]string, len(r.Command))
	for i, a := range r.Command {
		if lp.argv[i], lp.err = scenarios.ExpandSecrets(a, d, &lp.secrets); lp.err != nil {
			return lp
		}
	}
	logRel, err := scenarios.Expand(r.Log, d)
	if err != nil {
		lp.err = err
		return lp
	}
	if lp.env, lp.kept, lp.err = rankEnv(c.opts.Inherited, filepath.Dir(c.self), c.s, r, c.arm, d, &lp.secrets); lp.err != nil {
		return lp
	}
	// The wrapper records the command with every secret redacted: it
	// cannot tell which parts came through {{env}}, the controller can.
	if shown := redactArgv(lp.argv, lp.secrets); !slices.Equal(shown, lp.argv) {
		data, _ := json.Marshal(shown)
		lp.env = append(lp.env, rankwrap.EnvArgv+"="+string(data))
	}
	// What the rank is given, secrets redacted by name and by value, for
	// provenance: the unredacted environment is never written anywhere
	// but the 0600 launch file of an srun step, removed at teardown.
	envData, _ := json.MarshalIndent(lp.secrets.EnvIn(lp.env), "", "  ")
	if lp.err = atomicfile.Publish(rundir.EnvPath(c.coord, r.Name, rank), envData, 0o644); lp.err != nil {
		return lp
	}
	lp.p = &rankProc{role: r.Name, rank: rank, client: r.Client, log: filepath.Join(c.dir, logRel)}
	return lp
}

// checkExits aborts on any rank that ended while it should be running.
func (c *controller) checkExits() error {
	for {
		select {
		case p := <-c.exited:
			if p.stopping || p.client {
				continue
			}
			c.fail(reason.New(reason.RankExited, "%s rank %d %s during phase %s; last log line: %s",
				p.role, p.rank, p.howEnded(), c.status.Phase, lastLine(p.log)).At(c.arm, p.role, p.rank))
			return errAbort
		default:
			return nil
		}
	}
}

// waitReadyOnce waits a little for any started role to become ready.
func (c *controller) waitReadyOnce(ctx context.Context, started map[string]bool) error {
	for name := range started {
		if !c.ready[name] && c.roleReady(c.s.Role(name)) {
			c.ready[name] = true
			return nil
		}
	}
	if err := c.checkExits(); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return c.readyTimeout(ctx)
	case <-time.After(10 * time.Millisecond):
	}
	return nil
}

func (c *controller) readyTimeout(ctx context.Context) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	var waiting []string
	for _, p := range c.procs {
		if !c.ready[p.role] && !c.rankReady(c.s.Role(p.role), p) {
			waiting = append(waiting, p.name())
		}
	}
	// A wrong arm often is why ranks never got ready (mismatched ranks can
	// hang each other): say so first, from what the ranks registered and logged.
	when := "while waiting for readiness"
	c.status.Reasons = append(c.status.Reasons, c.checkRegistrations(when, false)...)
	if err := c.checkModes(when); err != nil {
		c.fail(reasonOf(err))
	}
	c.fail(reason.New(reason.DeadlineExceeded, "not ready within the ready deadline %s: %s", c.s.Deadlines.Ready, strings.Join(waiting, ", ")))
	return errAbort
}

func (c *controller) waitRoleReady(ctx context.Context, r *scenarios.Role) error {
	for !c.ready[r.Name] {
		if c.roleReady(r) {
			c.ready[r.Name] = true
			break
		}
		if err := c.checkExits(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return c.readyTimeout(ctx)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

func (c *controller) roleReady(r *scenarios.Role) bool {
	for _, p := range c.procs {
		if p.role == r.Name && !c.rankReady(r, p) {
			return false
		}
	}
	return true
}

// rankReady applies the role's probe; without one, a registered rank is ready.
func (c *controller) rankReady(r *scenarios.Role, p *rankProc) bool {
	if _, ok, _ := rundir.ReadRegistration(c.coord, p.role, p.rank); !ok {
		return false
	}
	switch {
	case r.Ready == nil:
		return true
	case r.Ready.Log != "":
		if p.ready == nil {
			p.ready = newFollower(p.log, p.offset, c.pattern(r.Ready.Log))
		}
		return p.ready.poll(c.followBuf())
	default:
		port, err := scenarios.Expand(r.Ready.Port, c.data(r, p.rank))
		if err != nil {
			return false
		}
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), 100*time.Millisecond)
		if err != nil {
			return false
		}
		_ = conn.Close() // a probe: it sent nothing that a close could lose
		return true
	}
}

// pattern compiles a scenario pattern once (validation compiled it first).
func (c *controller) pattern(p string) *regexp.Regexp {
	if c.patterns == nil {
		c.patterns = map[string]*regexp.Regexp{}
	}
	re, ok := c.patterns[p]
	if !ok {
		re = regexp.MustCompile(p)
		c.patterns[p] = re
	}
	return re
}

// followBuf is the one read buffer of every follower: polling is sequential.
func (c *controller) followBuf() []byte {
	if c.buf == nil {
		c.buf = make([]byte, followChunk)
	}
	return c.buf
}

// checkArm requires, before any client traffic, a registration from every
// expected rank with the exact arm values, and modes that agree.
func (c *controller) checkArm(when string) error {
	rs := c.checkRegistrations(when, false)
	c.status.Reasons = append(c.status.Reasons, rs...)
	if len(rs) > 0 {
		return errAbort
	}
	if err := c.checkModes(when); err != nil {
		c.fail(reasonOf(err))
		return errAbort
	}
	return nil
}

// hashBuilds names every arm's build by the SHA-256 of its binary, before
// any rank starts, so a rank can be held to its own arm's build.
func (c *controller) hashBuilds() error {
	if !c.s.HasBuilds() {
		return nil
	}
	for _, name := range c.s.ArmOrder {
		b := c.s.Arms[name].Build
		path := c.s.TemplateData(scenarios.Place{Arm: name}).Build
		sum, err := filehash.SHA256(path)
		if err != nil {
			return fmt.Errorf("arm %s's build: %w (build the binary, or fix arms: %s: build: binary:)", name, err, name)
		}
		c.status.Builds = append(c.status.Builds, rundir.BuildFact{Arm: name, Binary: path, SHA256: sum, Source: b.Source})
	}
	c.writeStatus()
	return nil
}

// ownBuild is the arm's own build, as hashed when the run started.
func (c *controller) ownBuild() rundir.BuildFact {
	for _, b := range c.status.Builds {
		if b.Arm == c.arm {
			return b
		}
	}
	return rundir.BuildFact{}
}

// checkBuild holds a rank's executable to the arm's build: running
// another arm's build, or the arm's binary changed since the run started,
// is a build-mismatch. It reports whether the rank ran the arm's build.
func (c *controller) checkBuild(r *scenarios.Role, rank int, reg *rundir.Registration) (bool, []reason.Reason) {
	if len(c.status.Builds) == 0 || reg.ExeSHA256 == "" {
		return false, nil
	}
	own := c.ownBuild()
	if reg.ExeSHA256 == own.SHA256 {
		return true, nil
	}
	for _, b := range c.status.Builds {
		if b.SHA256 == reg.ExeSHA256 {
			return false, []reason.Reason{reason.New(reason.BuildMismatch, "%s rank %d ran arm %s's build %s (sha256 %.12s), but this is arm %s, whose build is %s (sha256 %.12s)",
				r.Name, rank, b.Arm, b.Binary, b.SHA256, c.arm, own.Binary, own.SHA256).At(c.arm, r.Name, rank)}
		}
	}
	if len(reg.Command) > 0 && reg.Command[0] == own.Binary {
		return false, []reason.Reason{reason.New(reason.BuildMismatch, "%s rank %d ran %s with content sha256 %.12s, but it held %.12s when the run started: the build changed during the run",
			r.Name, rank, own.Binary, reg.ExeSHA256, own.SHA256).At(c.arm, r.Name, rank)}
	}
	return false, nil
}

// checkRegistrations checks every started rank's registration (clients only
// when clients is set) against the arm.
func (c *controller) checkRegistrations(when string, clients bool) []reason.Reason {
	var rs []reason.Reason
	armEnv := c.s.Arms[c.arm].Env
	keys := c.s.ArmKeys()
	for _, r := range c.s.Roles {
		if r.Client != clients {
			continue // clients register when they start, and are checked after
		}
		for rank := range r.Ranks {
			reg, ok, err := rundir.ReadRegistration(c.coord, r.Name, rank)
			if err != nil || !ok {
				rs = append(rs, reason.New(reason.RankMissing, "%s rank %d never registered %s", r.Name, rank, when).At(c.arm, r.Name, rank))
				continue
			}
			ranOwn, brs := c.checkBuild(&r, rank, &reg)
			rs = append(rs, brs...)
			if ranOwn {
				c.ranBuild = true
			}
			for _, k := range keys {
				got := reg.ArmEnv[k]
				switch {
				case r.ArmEnv && got == nil:
					rs = append(rs, reason.New(reason.ArmEnvMissing, "%s rank %d did not receive %s (arm %s sets %q)", r.Name, rank, k, c.arm, armEnv[k]).At(c.arm, r.Name, rank))
				case r.ArmEnv && *got != armEnv[k]:
					rs = append(rs, reason.New(reason.ArmEnvMissing, "%s rank %d received %s=%q, but arm %s sets %q", r.Name, rank, k, *got, c.arm, armEnv[k]).At(c.arm, r.Name, rank))
				case !r.ArmEnv && got != nil:
					rs = append(rs, reason.New(reason.ArmEnvLeak, "%s rank %d received arm key %s=%q, but role %s does not take the arm env", r.Name, rank, k, *got, r.Name).At(c.arm, r.Name, rank))
				}
			}
		}
	}
	return rs
}

// checkModes requires each rank's last mode line to agree with the arm.
func (c *controller) checkModes(when string) error {
	m := c.s.Evidence.Mode
	if m == nil {
		return nil
	}
	re := c.pattern(m.Pattern)
	armEnv := c.s.Arms[c.arm].Env
	var rs []reason.Reason
	for _, p := range c.procs {
		if p.role != m.Role {
			continue
		}
		if p.mode == nil {
			p.mode = newFollower(p.log, p.offset, re)
		}
		if !p.mode.poll(c.followBuf()) {
			rs = append(rs, reason.New(reason.ArmModeMismatch, "%s rank %d logged no mode line %s", p.role, p.rank, when).At(c.arm, p.role, p.rank))
			continue
		}
		last := p.mode.last
		for i, g := range re.SubexpNames() {
			if want, ok := armEnv[g]; ok && last[i] != want {
				rs = append(rs, reason.New(reason.ArmModeMismatch, "%s rank %d logs %s=%s %s, but arm %s sets %q", p.role, p.rank, g, last[i], when, c.arm, want).At(c.arm, p.role, p.rank))
			}
		}
	}
	if len(rs) > 0 {
		return &reason.Error{Reasons: rs}
	}
	return nil
}

func (c *controller) writeOffsets() error {
	offsets := map[string]rundir.Offset{}
	for _, p := range c.procs {
		rel, _ := filepath.Rel(c.dir, p.log)
		offsets[p.name()] = rundir.Offset{File: rel, Offset: p.offset, Inode: p.inode}
	}
	data, _ := json.MarshalIndent(offsets, "", "  ")
	return atomicfile.WriteFile(filepath.Join(c.coord, rundir.OffsetsFile), data, 0o644)
}

func (c *controller) runClients(ctx context.Context, clients []*scenarios.Role) error {
	c.phase("client", "running the client")
	for _, r := range clients {
		if _, err := c.startRole(r); err != nil {
			return err
		}
	}
	clientCtx, cancel := context.WithTimeout(ctx, time.Duration(c.s.Deadlines.Client))
	defer cancel()
	for _, p := range c.procs {
		if !p.client {
			continue
		}
		for !p.exited() {
			if err := c.checkExits(); err != nil {
				return err
			}
			select {
			case <-clientCtx.Done():
				if ctx.Err() != nil {
					return ctx.Err()
				}
				c.fail(reason.New(reason.DeadlineExceeded, "client %s rank %d did not finish within the client deadline %s", p.role, p.rank, c.s.Deadlines.Client).At(c.arm, p.role, p.rank))
				return errAbort
			case <-p.done:
			case <-time.After(20 * time.Millisecond):
			}
		}
		if code := p.exitCode(); code != 0 {
			c.fail(reason.New(reason.RankExited, "client %s rank %d exited with status %d; last log line: %s", p.role, p.rank, code, lastLine(p.log)).At(c.arm, p.role, p.rank))
			return errAbort
		}
	}
	return c.checkExits()
}

// waitAllExit is the measured phase of a scenario without a client: the
// ranks run the benchmark themselves and exit.
func (c *controller) waitAllExit(ctx context.Context) error {
	c.phase("measure", "waiting for the ranks to finish")
	deadline := time.After(time.Duration(c.s.Deadlines.Client))
	for _, p := range c.procs {
		p.client = true // their exit is the end of the measurement, not a failure
	}
	for _, p := range c.procs {
		select {
		case <-p.done:
			if code := p.exitCode(); code != 0 {
				c.fail(reason.New(reason.RankExited, "%s rank %d exited with status %d; last log line: %s", p.role, p.rank, code, lastLine(p.log)).At(c.arm, p.role, p.rank))
				return errAbort
			}
		case <-deadline:
			c.fail(reason.New(reason.DeadlineExceeded, "%s rank %d did not finish within the client deadline %s", p.role, p.rank, c.s.Deadlines.Client).At(c.arm, p.role, p.rank))
			return errAbort
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// drain waits until no log has grown for 200 ms, at most the drain deadline.
func (c *controller) drain(ctx context.Context) {
	end := time.Now().Add(time.Duration(c.s.Deadlines.Drain))
	size := func() int64 {
		var n int64
		for _, p := range c.procs {
			if fi, err := os.Stat(p.log); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	last, since := size(), time.Now()
	for time.Now().Before(end) && time.Since(since) < 200*time.Millisecond {
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		if n := size(); n != last {
			last, since = n, time.Now()
		}
	}
}

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
