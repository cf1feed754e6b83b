package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/launcher/local"
	"github.com/abbench/abbench/internal/launcher/slurm"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Event is a change of one run's state (a phase, pending, an end state).
type Event struct {
	Index, Total int
	Arm, State   string
	// Cell is the run's cell of a sweep ("" outside one).
	Cell    string
	Elapsed time.Duration
	// Tick is true for a repeat of the same state (elapsed time only).
	Tick bool
	// Look is set for a sequential campaign's look (State "look").
	Look *rundir.Look
	// Ended marks a run's end state; Evidence is then what the run's
	// evidence.json says (nil without one), and Left the planned runs
	// that have not ended (runs of a block end in any order).
	Ended    bool
	Left     int
	Evidence *evidence.Evidence
	// Decided is set with the look that stopped a sequential campaign,
	// or a sweep's cell; CellsLeft, with a cell's look, says how many of
	// the sweep's cells have not stopped.
	Decided   string
	CellsLeft int
}

// Result is what a campaign did.
type Result struct {
	Out  string
	Plan *rundir.Plan
	// Runs parallels Plan.Runs: what each run left (nil where it left nothing).
	Runs []Run
	// Interrupted is true when the context ended the campaign early.
	Interrupted bool
	// Stopped, when set, says why the campaign stopped early: a run failed
	// for a cause no repeat can change (Config.KeepGoing goes on).
	Stopped string
	// Decided, when set, says which look of a sequential campaign decided
	// (or found the comparison censored) before its last planned block.
	Decided string
	// Together says, for a concurrent campaign, how the runs of each block
	// ran: at the same time or not, on nodes of their own or not.
	Together []Together
	// AfterAll says how each after_all hook that failed ended.
	AfterAll []string
	// Unrecorded, when set, is the write of plan.json that failed (a
	// write-failed reason) and that no later write made good: the campaign
	// stopped there, as the plan on disk does not say how its runs went.
	Unrecorded *reason.Reason

	given string // Out as Config gave it, for messages
}

// record writes plan.json and says whether the plan on disk is the
// campaign's now (Unrecorded otherwise).
func (r *Result) record(after string) bool {
	if err := rundir.WritePlan(r.Out, r.Plan); err != nil {
		rs := reason.New(reason.WriteFailed, "%s: %v: the plan on disk does not say how the campaign went from there, so it stopped", after, err)
		r.Unrecorded = &rs
		return false
	}
	r.Unrecorded = nil
	return true
}

// Run is what one run of the plan left.
type Run struct {
	Planned  *rundir.PlannedRun
	Status   *rundir.Status
	Evidence *evidence.Evidence

	kept bool // a resumed campaign's run that had ended: not run again
}

// Execute runs the planned runs one at a time (with Config.Concurrent,
// the runs of each block at the same time), each in a fresh allocation,
// and records each one's allocation, result, status and evidence in
// plan.json as it ends. A run past its deadline is cancelled and the
// campaign goes on; when ctx ends, the runs in progress are torn down
// (their files kept, the runs marked interrupted) and Execute returns
// with Interrupted set. A campaign Reopen returned keeps the runs that
// ended and runs the others, waiting for an allocation still queued or
// running instead of starting it again. The scenario's before_all hooks
// run first and its after_all hooks last, whatever happened. The error
// is non-nil only when a before_all hook failed (*HookError) or a run
// could not be started at all.
func Execute(ctx context.Context, cfg *Config, r *Result) error {
	c := &execution{Config: cfg, total: len(r.Runs)}
	l, ranks := newLauncher(cfg)
	runDeadline := deadline(c.Scenario)
	if c.Concurrent {
		defer func() { r.Together = c.together(r) }()
	}
	if r.Plan.Decided != "" || r.Left() == 0 { // a resumed campaign that had ended: nothing is left to run
		r.Decided = r.Plan.Decided
		return nil
	}
	defer c.afterAll(r)
	if err := c.beforeAll(ctx, r); err != nil {
		return err
	}
	for _, group := range c.groups(len(r.Runs)) {
		if r.left(group) {
			if ctx.Err() != nil {
				r.Interrupted = true
				break
			}
			if err := c.runGroup(ctx, l, ranks, r, group, runDeadline); err != nil {
				return err
			}
			if r.Unrecorded != nil || r.Interrupted {
				break
			}
		}
		if c.stopAfterGroup(r, group) {
			break
		}
	}
	return nil
}

// unended counts the planned runs that have not ended.
func (r *Result) unended() int {
	n := 0
	for _, run := range r.Runs {
		if run.Planned.Result == nil {
			n++
		}
	}
	return n
}

// left says whether any run of group is left to run.
func (r *Result) left(group []int) bool {
	for _, i := range group {
		if r.toRun(i) {
			return true
		}
	}
	return false
}

// toRun says whether run i is still to be made: not kept from before a
// resume, and not of a sweep cell a look already stopped.
func (r *Result) toRun(i int) bool { return !r.Runs[i].kept && !r.cellStopped(i) }

// stopAfterGroup says whether the campaign stops after group, judged run
// by run in plan order as stopAfter judges one.
func (c *execution) stopAfterGroup(r *Result, group []int) bool {
	for _, i := range group {
		if c.stopAfter(r, i) {
			return true
		}
	}
	return false
}

// start starts run i of r (or, resumed, finds its allocation still
// queued or running) and records its allocation in plan.json.
func (c *execution) start(ctx context.Context, l launcher.Launcher, ranks string, r *Result, i int) (launcher.Run, error) {
	pr := r.Runs[i].Planned
	spec := launcher.Spec{ID: rundir.RunID(pr.Index, pr.Arm), Dir: pr.Dir,
		Command: append([]string{c.Self, "arm", c.ScenarioPath, "--arm", pr.Arm, "--out", pr.Dir, "--format", "json", "--ranks", ranks,
			"--plan", filepath.Join(r.Out, rundir.PlanFile), "--run-index", strconv.Itoa(pr.Index)}, c.Sign.args()...)}
	if c.PairNodes {
		spec.Nodes = c.blockNodes(r, i)
		pr.Nodes = spec.Nodes
	}
	c.event(pr, "starting", 0, false)
	lr, err := c.startOrAttach(ctx, l, spec, pr)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", spec.ID, err)
	}
	pr.Allocation, pr.Result, pr.Accepted, pr.Interrupted = lr.AllocationID(), nil, nil, false
	// The run goes on either way: the plan is written again when it
	// ends, and the campaign stops if that fails too.
	r.record(fmt.Sprintf("after run %d (arm %s) started", pr.Index, pr.Arm))
	return lr, nil
}

// await waits for a started run within its deadline; one interrupted
// (ctx ended) or past its deadline is torn down, what it wrote kept. It
// reads only what no other goroutine changes while it waits (the run's
// index, arm and directory).
func (c *execution) await(ctx context.Context, lr launcher.Run, pr *rundir.PlannedRun, runDeadline time.Duration) (res rundir.Outcome, interrupted bool) {
	res, werr := c.wait(ctx, lr, pr, runDeadline)
	switch {
	case werr == nil:
		return res, false
	case errors.Is(werr, errPastDeadline):
		return c.stop(lr, werr), false
	}
	return c.stop(lr, nil), true
}

// finish records how a run ended and collects what it left.
func (c *execution) finish(r *Result, e ended) {
	run := &r.Runs[e.i]
	pr := run.Planned
	if e.interrupted {
		r.Interrupted, pr.Interrupted = true, true
	}
	pr.Result = &e.res
	run.collect()
	c.progress(Event{Index: pr.Index, Total: c.total, Arm: pr.Arm, Cell: pr.Cell, State: e.res.State, Elapsed: e.res.Ended.Sub(e.res.Started), Ended: true, Evidence: run.Evidence, Left: r.unended()})
}

// startOrAttach starts the run of spec; in a resumed campaign it first
// looks for the allocation the run was given before, which a launcher
// whose allocations outlive abbench (Slurm) may still run, and starts
// another attempt in the run's directory when there is none.
func (c *execution) startOrAttach(ctx context.Context, l launcher.Launcher, spec launcher.Spec, pr *rundir.PlannedRun) (launcher.Run, error) {
	if a, ok := l.(launcher.Attacher); ok && pr.Allocation != "" && pr.Result == nil {
		lr, err := a.Attach(spec, pr.Allocation)
		if err != nil || lr != nil {
			return lr, err
		}
	}
	if _, err := os.Lstat(spec.Dir); err == nil {
		spec.Again = true // an earlier attempt's directory: a new attempt beside it
	}
	return l.Start(ctx, spec)
}

// stopAfter says whether the campaign stops after run i (one it ran, or
// one a resumed campaign kept, judged as when it ended): a cause no
// repeat can change, or a sequential look that decided.
func (c *execution) stopAfter(r *Result, i int) bool {
	run := &r.Runs[i]
	pr := run.Planned
	if why := hopeless(run); why != "" && !c.KeepGoing && i < len(r.Runs)-1 {
		r.Stopped = fmt.Sprintf("run %d (arm %s) failed for a cause no repeat can change: %s", pr.Index, pr.Arm, why)
		return true
	}
	return r.Plan.Sequential != nil && i < len(r.Runs)-1 && c.look(r, i+1)
}

// blockNodes are the nodes of the first run of run i's block, for the
// block's later runs (nil for a first run, or a first run that registered
// no rank).
func (c *execution) blockNodes(r *Result, i int) []string {
	k := c.blockSize()
	first := r.Runs[i-i%k]
	if i%k == 0 || first.Status == nil {
		return nil
	}
	return rundir.Nodes(first.Status.Dir)
}

// hopeless says why a run failed for a cause that cannot change between
// repeats, or "": a rank that could not be started, or whose process
// exited 127 or 126, the statuses a shell and the rank wrapper give a
// command not found or not executable. Running the other planned runs
// would only bury that cause under their reasons. The rank's exit status
// is read from the status's ranks, never from the reason's words, which
// quote the rank's last log line.
func hopeless(run *Run) string {
	if why := noConnection(run); why != "" {
		return why
	}
	if run.Status == nil || len(run.Status.Reasons) == 0 {
		return ""
	}
	first := reason.Group(run.Status.Reasons)[0]
	switch {
	case first.Code == reason.LaunchFailed || first.Code == reason.ImageMismatch:
		return first.String()
	case first.Code == reason.RankExited && first.Rank != nil:
		switch rankExit(run.Status, first.Role, *first.Rank) {
		case 127:
			return first.String() + " (127: command not found)"
		case 126:
			return first.String() + " (126: not executable)"
		}
	}
	return ""
}

// rankExit is the exit status a run's status records for a rank that
// exited, or -1.
func rankExit(st *rundir.Status, role string, rank int) int {
	for _, r := range st.Ranks {
		if r.Role == role && r.Rank == rank && r.Exited {
			return r.ExitCode
		}
	}
	return -1
}

// collect reads what the run left: its newest attempt's status and
// evidence. A run whose controller failed (a requeued Slurm job cancelled
// before its new attempt ran) has no evidence of its own: the newest
// attempt's files are an older attempt's, which neither the calibration,
// the looks, plan.json nor the progress line may take for this run's.
func (run *Run) collect() {
	st, err := rundir.LatestStatus(run.Planned.Dir)
	if err != nil {
		return
	}
	run.Status = st
	run.Planned.Token = st.Token
	if run.Planned.Result.ControllerFailed() {
		return
	}
	var ev evidence.Evidence
	if rundir.ReadJSON(filepath.Join(st.Dir, rundir.EvidenceFile), &ev) == nil {
		run.Evidence = &ev
		run.Planned.Accepted = &ev.Accepted
	}
}

func (c *execution) event(pr *rundir.PlannedRun, state string, elapsed time.Duration, tick bool) {
	c.progress(Event{Index: pr.Index, Total: c.total, Arm: pr.Arm, Cell: pr.Cell, State: state, Elapsed: elapsed, Tick: tick})
}

// progress tells Progress of e; the runs of a block waited for at once
// tell it one at a time.
func (c *execution) progress(e Event) {
	if c.Progress == nil {
		return
	}
	c.serial.Lock()
	defer c.serial.Unlock()
	c.Progress(e)
}

func newLauncher(c *Config) (launcher.Launcher, string) {
	if c.launcher != nil {
		return c.launcher, arms.RanksLocal
	}
	s := c.Scenario
	d := s.Deadlines
	// The controller's teardown after a SIGTERM: its ranks', then its
	// teardown hooks', each bounded.
	grace := time.Duration(d.Teardown) + time.Duration(d.KillGrace) + s.HooksTime(scenarios.HookTeardown) + 5*time.Second
	if c.Launcher == "slurm" {
		return &slurm.Launcher{Options: s.Launcher.Slurm, TasksPerNode: tasksPerNode(s), Grace: grace, Exclusive: c.Concurrent}, arms.RanksSrun
	}
	if c.Launcher == "kubernetes" {
		return kubernetesLauncher(c, grace)
	}
	return &local.Launcher{CPUs: s.Launcher.Local.CPUs, Grace: grace}, arms.RanksLocal
}

// deadline bounds one run: every deadline of its phases and hooks, with a margin for
// the allocation to start. Nothing waits for ever, also not on an
// allocation that never starts or hangs.
func deadline(s *scenarios.Scenario) time.Duration {
	d := s.Deadlines
	phases := time.Duration(d.Ready+d.Client+d.Drain+d.Teardown+d.KillGrace) + s.HooksTime(scenarios.HookSetup) + s.HooksTime(scenarios.HookTeardown)
	return phases + max(10*time.Second, phases/5)
}

// tasksPerNode is what the largest srun step needs on each of its nodes.
func tasksPerNode(s *scenarios.Scenario) int {
	nodes := max(s.Launcher.Slurm.Nodes, 1)
	need := 1
	for _, r := range s.Roles {
		n := nodes
		if r.Slurm.Nodes > 0 {
			n = r.Slurm.Nodes
		}
		need = max(need, (r.Ranks+n-1)/n)
	}
	return need
}
