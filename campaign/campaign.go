package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/abbench/abbench/arms"
	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/launcher/local"
	"github.com/abbench/abbench/launcher/slurm"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The launchers Config.Launcher takes.
var Launchers = []string{"local", "slurm"}

// LauncherStages is the launcher plan.json names for a campaign whose runs
// are CI stages (abbench plan): each stage makes its run with abbench arm
// --plan, in an allocation of its own.
const LauncherStages = "stages"

// Config is one campaign.
type Config struct {
	Scenario     *scenarios.Scenario
	ScenarioPath string // the scenario file each run's controller reads (default: Scenario.File)
	Launcher     string // local or slurm
	Repeat       int    // runs per arm
	Order        string // OrderInterleaved or OrderRandom
	Seed         uint64 // the random order's seed, recorded
	SeedSet      bool   // false: Plan takes the seed from the clock
	// Out is the campaign directory; it must be new or empty (default
	// out/NAME-TIME).
	Out string
	// Calibrate, when set, runs only this arm (an A/A campaign).
	Calibrate string
	// MaxPending bounds the time a run's allocation may stay queued.
	MaxPending time.Duration
	// Self is the abbench executable each allocation runs as its
	// controller (default: this process's executable).
	Self string
	// Sign says how every run's controller signs its bundle.
	Sign Signing
	// Progress, when set, hears every change of a run's state.
	Progress func(Event)
	// KeepGoing runs every planned run even after one failed for a cause
	// that cannot change between repeats (Result.Stopped).
	KeepGoing bool
	// Warmup is the number of warm-up blocks (one run of every arm each)
	// before the counted ones: run, recorded, left out of the statistics.
	Warmup int
	// Until is "" (Repeat blocks) or UntilConclusive: look after every
	// block from MinPairs on and stop at the first decided verdict, at
	// most MaxPairs blocks.
	Until              string
	MinPairs, MaxPairs int
	// Compare is how a sequential campaign's looks compare (metric,
	// smallest effect, level, method): as the final comparison will.
	Compare compare.Options
	// PairNodes runs every run of an abba block on the nodes of the
	// block's first run (each still its own allocation): the pair shares
	// its hardware, and the comparison within it does not see the
	// difference between nodes.
	PairNodes bool
	// Stages plans runs that CI stages make, one abbench arm each (abbench
	// plan); Plan writes the plan and nothing runs it here.
	Stages bool
	// RepeatSet and MaxPairsSet say the flags were given: without
	// --repeat an abba campaign of two arms or more runs until conclusive,
	// and with a calibration, MaxPairs is the pairs it needs.
	RepeatSet, MaxPairsSet bool

	total int // runs in the plan, for events
}

// Signing is how the runs' controllers sign their bundles: a key file, or
// ssh-agent (with the public key file of the key to use), or nothing.
type Signing struct {
	Key     string
	Agent   bool
	Pub     string
	Archive bool // also pack each bundle as bundle.tar.gz
}

// args are the abbench arm flags that sign so, with absolute paths (the
// controller runs in its run directory).
func (s Signing) args() []string {
	var a []string
	switch {
	case s.Agent:
		a = append(a, "--sign-agent")
		if s.Pub != "" {
			pub, _ := filepath.Abs(s.Pub)
			a = append(a, "--sign-pub", pub)
		}
	case s.Key != "":
		key, _ := filepath.Abs(s.Key)
		a = append(a, "--sign-key", key)
	}
	if s.Archive {
		a = append(a, "--archive")
	}
	return a
}

// Event is a change of one run's state (a phase, pending, an end state).
type Event struct {
	Index, Total int
	Arm, State   string
	Elapsed      time.Duration
	// Tick is true for a repeat of the same state (elapsed time only).
	Tick bool
	// Look is set for a sequential campaign's look (State "look").
	Look *rundir.Look
	// Ended marks a run's end state; Evidence is then what the run's
	// evidence.json says (nil without one).
	Ended    bool
	Evidence *evidence.Evidence
	// Decided is set with the look that stopped a sequential campaign.
	Decided string
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
	// Unrecorded, when set, is the write of plan.json that failed (a
	// write-failed reason) and that no later write made good: the campaign
	// stopped there, as the plan on disk does not say how its runs went.
	Unrecorded *reason.Reason
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

// UntilConclusive is the Until of a sequential campaign.
const UntilConclusive = "conclusive"

// Run is what one run of the plan left.
type Run struct {
	Planned  *rundir.PlannedRun
	Status   *rundir.Status
	Evidence *evidence.Evidence
}

// ErrNotEmpty is returned when Config.Out already holds files.
var ErrNotEmpty = errors.New("the campaign directory is not empty")

// Check validates the configuration before anything is written, after
// filling in the defaults that depend on other settings.
func (c *Config) Check() error {
	if !c.RepeatSet && c.Until == "" && c.Calibrate == "" && c.Order == OrderABBA && len(c.Scenario.ArmOrder) > 1 {
		c.Until = UntilConclusive // the default: pairs until a test decides
	}
	if cal := c.Compare.Calibration; cal != nil && !c.MaxPairsSet {
		c.MaxPairs = min(max(cal.PairsNeeded, c.MinPairs), 50)
	}
	switch {
	case c.Until != "" && c.RepeatSet:
		return fmt.Errorf("--repeat and --until: give one (--repeat N runs N blocks; --until conclusive looks after each)")
	case !contains(Launchers, c.Launcher):
		return fmt.Errorf("--launcher %q: choose local or slurm", c.Launcher)
	case c.Repeat < 1 && c.Until == "":
		return fmt.Errorf("--repeat %d: must be at least 1", c.Repeat)
	case !contains(Orders, c.Order):
		return fmt.Errorf("--order %q: choose %s", c.Order, strings.Join(Orders, ", "))
	case c.PairNodes && (c.Launcher != "slurm" || c.Order != OrderABBA):
		return fmt.Errorf("--pair-nodes: needs --launcher slurm and --order abba (a local run has one node)")
	case c.Warmup < 0:
		return fmt.Errorf("--warmup %d: must be 0 or more", c.Warmup)
	case c.Until != "" && c.Until != UntilConclusive:
		return fmt.Errorf("--until %q: the one condition is %q", c.Until, UntilConclusive)
	}
	if c.Calibrate != "" {
		if _, ok := c.Scenario.Arms[c.Calibrate]; !ok {
			return fmt.Errorf("--calibrate %q is not an arm of %s (arms: %v)", c.Calibrate, c.Scenario.File, c.Scenario.ArmOrder)
		}
		if c.Repeat < 2 {
			return fmt.Errorf("calibration needs --repeat of at least 2 (A/A pairs; 5 or more give a useful estimate)")
		}
		if c.Until != "" {
			return fmt.Errorf("--until and --calibrate: a calibration runs a fixed number of A/A pairs (--repeat)")
		}
	}
	if c.Until != "" {
		if c.Order != OrderABBA {
			return fmt.Errorf("--until %s needs --order abba: the looks compare within pairs", c.Until)
		}
		if len(c.Scenario.ArmOrder) < 2 {
			return fmt.Errorf("--until %s needs two arms or more", c.Until)
		}
		if _, err := decide.NewSequential(c.MinPairs, c.MaxPairs, c.Compare.Alpha); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Plan writes the campaign's plan into Out (which must be new or empty)
// and returns it; Execute then runs it.
func Plan(c *Config) (*Result, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if !c.SeedSet {
		c.Seed, c.SeedSet = uint64(time.Now().UnixNano()), true
	}
	if c.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		c.Self = self
	}
	if c.ScenarioPath == "" {
		c.ScenarioPath, _ = filepath.Abs(c.Scenario.File)
	}
	if c.Out == "" {
		c.Out = filepath.Join("out", c.Scenario.Name+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return nil, err
	}
	if err := claim(out); err != nil {
		return nil, fmt.Errorf("--out %s: %w", c.Out, err)
	}
	if err := os.Mkdir(filepath.Join(out, rundir.RunsDir), 0o755); err != nil {
		return nil, err
	}
	s := c.Scenario
	armNames := s.ArmOrder
	if c.Calibrate != "" {
		armNames = []string{c.Calibrate}
	}
	p := &rundir.Plan{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Launcher: c.Launcher, Order: c.Order, Seed: c.Seed, Repeat: c.Repeat, Warmup: c.Warmup}
	if c.Stages {
		p.Launcher = LauncherStages
	}
	blocks := c.Repeat
	switch {
	case c.Calibrate != "":
		blocks = 2 * c.Repeat // A/A pairs of the one arm
	case c.Until != "":
		seq, _ := decide.NewSequential(c.MinPairs, c.MaxPairs, c.Compare.Alpha)
		p.Sequential = &rundir.Sequential{MinPairs: seq.MinPairs, MaxPairs: seq.MaxPairs, Alpha: seq.Alpha, LookAlpha: seq.LookAlpha,
			Rule: &rundir.StopRule{Baseline: c.Compare.Baseline, Metric: c.Compare.Metric, Effect: c.Compare.Effect, Method: c.Compare.Method}}
		blocks, p.Repeat = seq.MaxPairs, 0
	}
	for i, arm := range Order(armNames, c.Warmup+blocks, c.Order, c.Seed) {
		p.Runs = append(p.Runs, rundir.PlannedRun{Index: i + 1, Arm: arm, Dir: rundir.RunDir(out, i+1, arm), Warmup: i < c.Warmup*len(armNames)})
	}
	if err := rundir.WritePlan(out, p); err != nil {
		return nil, err
	}
	r := &Result{Out: out, Plan: p, Runs: make([]Run, len(p.Runs))}
	for i := range p.Runs {
		r.Runs[i].Planned = &p.Runs[i]
	}
	return r, nil
}

// Execute runs the planned runs one at a time, each in a fresh allocation,
// and records each one's allocation, result, status and evidence in
// plan.json as it ends. A run past its deadline is cancelled and the
// campaign goes on; when ctx ends, the run in progress is torn down (its
// files kept) and Execute returns with Interrupted set. The error is
// non-nil only when a run could not be started at all.
func Execute(ctx context.Context, c *Config, r *Result) error {
	c.total = len(r.Runs)
	l, ranks := newLauncher(c)
	runDeadline := deadline(c.Scenario)
	for i := range r.Runs {
		run := &r.Runs[i]
		pr := run.Planned
		if ctx.Err() != nil {
			r.Interrupted = true
			break
		}
		spec := launcher.Spec{ID: rundir.RunID(pr.Index, pr.Arm), Dir: pr.Dir,
			Command: append([]string{c.Self, "arm", c.ScenarioPath, "--arm", pr.Arm, "--out", pr.Dir, "--format", "json", "--ranks", ranks,
				"--plan", filepath.Join(r.Out, rundir.PlanFile), "--run-index", strconv.Itoa(pr.Index)}, c.Sign.args()...)}
		if c.PairNodes {
			spec.Nodes = c.blockNodes(r, i)
			pr.Nodes = spec.Nodes
		}
		c.event(pr, "starting", 0, false)
		lr, err := l.Start(ctx, spec)
		if err != nil {
			return fmt.Errorf("run %s: %w", spec.ID, err)
		}
		pr.Allocation = lr.AllocationID()
		// The run goes on either way: the plan is written again when it
		// ends, and the campaign stops if that fails too.
		r.record(fmt.Sprintf("after run %d (arm %s) started", pr.Index, pr.Arm))
		res, werr := c.wait(ctx, lr, pr, runDeadline)
		if werr != nil { // interrupted or past its deadline: tear the run down, keep what it wrote
			cerr := lr.Cancel()
			res, _ = lr.Wait(context.Background())
			if errors.Is(werr, errPastDeadline) {
				res.Detail = fmt.Sprintf("cancelled: %v; %s", werr, res.Detail)
			} else {
				r.Interrupted = true
			}
			if cerr != nil {
				res.Detail = fmt.Sprintf("%s; cancelling: %v", res.Detail, cerr)
			}
		}
		pr.Result = &rundir.Outcome{State: string(res.State), ExitCode: res.ExitCode, AllocationID: res.AllocationID, Started: res.Started, Ended: res.Ended, Detail: res.Detail}
		run.collect()
		c.progress(Event{Index: pr.Index, Total: c.total, Arm: pr.Arm, State: string(res.State), Elapsed: res.Ended.Sub(res.Started), Ended: true, Evidence: run.Evidence})
		if !r.record(fmt.Sprintf("after run %d (arm %s) ended", pr.Index, pr.Arm)) || r.Interrupted {
			break
		}
		if why := hopeless(run); why != "" && !c.KeepGoing && i < len(r.Runs)-1 {
			r.Stopped = fmt.Sprintf("run %d (arm %s) failed for a cause no repeat can change: %s", pr.Index, pr.Arm, why)
			break
		}
		if r.Plan.Sequential != nil && i < len(r.Runs)-1 && c.look(r, i+1) {
			break
		}
	}
	return nil
}

// blockNodes are the nodes of the first run of run i's block, for the
// block's later runs (nil for a first run, or a first run that registered
// no rank).
func (c *Config) blockNodes(r *Result, i int) []string {
	k := len(c.Scenario.ArmOrder)
	if c.Calibrate != "" {
		k = 2 // A/A pairs
	}
	first := r.Runs[i-i%k]
	if i%k == 0 || first.Status == nil {
		return nil
	}
	return rundir.Nodes(first.Status.Dir)
}

// hopeless says why a run failed for a cause that cannot change between
// repeats, or "": a rank that could not be started, a command not found or
// not executable, a file that does not exist. Running the other planned
// runs would only bury that cause under their reasons.
func hopeless(run *Run) string {
	if run.Status == nil || len(run.Status.Reasons) == 0 {
		return ""
	}
	first := reason.Group(run.Status.Reasons)[0]
	d := strings.ToLower(first.Detail)
	switch {
	case first.Code == reason.LaunchFailed:
		return first.String()
	case first.Code == reason.RankExited && (strings.Contains(d, "exited with status 127") || strings.Contains(d, "exited with status 126")):
		return first.String() + " (127: command not found, 126: not executable)"
	case first.Code == reason.RankExited && (strings.Contains(d, "no such file or directory") || strings.Contains(d, "not found in the rank's path")):
		return first.String()
	}
	return ""
}

// collect reads what the run left: its newest attempt's status and evidence.
func (run *Run) collect() {
	st, err := rundir.LatestStatus(run.Planned.Dir)
	if err != nil {
		return
	}
	run.Status = st
	run.Planned.Token = st.Token
	var ev evidence.Evidence
	if rundir.ReadJSON(filepath.Join(st.Dir, rundir.EvidenceFile), &ev) == nil {
		run.Evidence = &ev
		run.Planned.Accepted = &ev.Accepted
	}
}

func (c *Config) event(pr *rundir.PlannedRun, state string, elapsed time.Duration, tick bool) {
	c.progress(Event{Index: pr.Index, Total: c.total, Arm: pr.Arm, State: state, Elapsed: elapsed, Tick: tick})
}

func (c *Config) progress(e Event) {
	if c.Progress != nil {
		c.Progress(e)
	}
}

// claim makes out the directory of this campaign alone: plan.json is
// created exclusively, so of two campaigns started into one directory at
// once exactly one gets it, and a directory that holds anything else is
// refused.
func claim(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(out, rundir.PlanFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return ErrNotEmpty
	} else if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 1 {
		if rerr := os.Remove(filepath.Join(out, rundir.PlanFile)); rerr != nil {
			return fmt.Errorf("%w; and removing the %s it made: %v (remove it by hand)", ErrNotEmpty, rundir.PlanFile, rerr)
		}
		if err != nil {
			return err
		}
		return ErrNotEmpty
	}
	return nil
}

func newLauncher(c *Config) (launcher.Launcher, string) {
	s := c.Scenario
	d := s.Deadlines
	grace := time.Duration(d.Teardown) + time.Duration(d.KillGrace) + 5*time.Second
	if c.Launcher == "slurm" {
		return &slurm.Launcher{Options: s.Launcher.Slurm, TasksPerNode: tasksPerNode(s), Grace: grace}, arms.RanksSrun
	}
	return &local.Launcher{CPUs: s.Launcher.Local.CPUs, Grace: grace}, arms.RanksLocal
}

// deadline bounds one run: every deadline of its phases, with a margin for
// the allocation to start. Nothing waits for ever, also not on an
// allocation that never starts or hangs.
func deadline(s *scenarios.Scenario) time.Duration {
	d := s.Deadlines
	phases := time.Duration(d.Ready + d.Client + d.Drain + d.Teardown + d.KillGrace)
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
