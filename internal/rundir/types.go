package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/abbench/abbench/internal/reason"
)

// The states an attempt ends in (status.json's state).
const (
	StateRunning     = "running"
	StateSucceeded   = "succeeded"
	StateFailed      = "failed"
	StateInterrupted = "interrupted"
)

// Status is how an attempt went: status.json, written at every phase
// change, so an attempt killed at any point still says how far it got.
type Status struct {
	Schema        string          `json:"schema"` // StatusSchema
	Scenario      string          `json:"scenario"`
	MatchedDigest string          `json:"matched_digest"`
	Arm           string          `json:"arm"`
	Token         string          `json:"token"`
	Dir           string          `json:"dir"`
	State         string          `json:"state"`
	Phase         string          `json:"phase"`
	Reasons       []reason.Reason `json:"reasons"`
	Started       time.Time       `json:"started"`
	Ended         time.Time       `json:"ended,omitzero"`
	Phases        []PhaseTime     `json:"phases"`
	Ranks         []RankStatus    `json:"ranks"`
	Inherited     []string        `json:"inherited_env"`
	Swept         int             `json:"swept_processes"`
	// Builds are every arm's build, hashed when the run started, when the
	// arms are builds: a rank that ran another arm's is censored.
	Builds []BuildFact `json:"builds,omitempty"`
	// Hooks are the setup and teardown hooks that ran, in order.
	Hooks []HookStatus `json:"hooks,omitempty"`
	// Containers are the images the roles that run in containers ran,
	// each pinned to its content digest before the run started.
	Containers []ContainerImage `json:"containers,omitempty"`
}

// ContainerImage is the image a role's ranks run in: as the scenario names
// it, and the content digest (the image ID, sha256:...) it was pinned to
// before a campaign's first run. plan.json records the pins; every run's
// status.json and provenance record what it ran.
type ContainerImage struct {
	Role    string `json:"role"`
	Runtime string `json:"runtime"`
	Image   string `json:"image"`
	Digest  string `json:"digest"`
}

// HookStatus is how one hook of a run ended.
type HookStatus struct {
	Kind     string    `json:"kind"` // setup or teardown
	Index    int       `json:"index"`
	Command  []string  `json:"command"` // as run, secrets redacted
	Log      string    `json:"log"`     // relative to the attempt (HookLog)
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	ExitCode int       `json:"exit_code"` // -1: ended by a signal, or never started
	TimedOut bool      `json:"timed_out,omitempty"`
}

// BuildFact is one arm's build as a run found it.
type BuildFact struct {
	Arm    string `json:"arm"`
	Binary string `json:"binary"` // absolute
	SHA256 string `json:"sha256"`
	Source string `json:"source,omitempty"`
}

// The versions of the files abbench writes into a run directory: each
// file names its own in its "schema" field, and docs/schema holds a JSON
// Schema of each. A change that a reader of the old version would misread
// takes a new version.
const (
	StatusSchema       = "abbench-status-v1"
	PlanSchema         = "abbench-plan-v1"
	RegistrationSchema = "abbench-registration-v1"
)

// PhaseTime is when a phase began.
type PhaseTime struct {
	Name  string    `json:"name"`
	Start time.Time `json:"start"`
}

// RankStatus is one rank's process and log.
type RankStatus struct {
	Role     string `json:"role"`
	Rank     int    `json:"rank"`
	PID      int    `json:"pid"`
	Log      string `json:"log"`
	Offset   int64  `json:"log_offset"`
	Inode    uint64 `json:"log_inode"`
	ExitCode int    `json:"exit_code"`
	Killed   bool   `json:"killed"`
	Exited   bool   `json:"exited"`
	// ImageID is the image a rank pod ran by digest (--ranks kubernetes),
	// as its kubelet reported it.
	ImageID string `json:"image_id,omitempty"`
}

// Offset is a log's byte offset recorded before the measured phase
// (coord/offsets.json maps ROLE-RANK to one).
type Offset struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	Inode  uint64 `json:"inode"`
}

// Registration is what the rank wrapper records about the process it is
// about to become, written before it execs the real command.
type Registration struct {
	Schema string    `json:"schema"` // RegistrationSchema
	Role   string    `json:"role"`
	Rank   int       `json:"rank"`
	Host   string    `json:"host"`
	PID    int       `json:"pid"`
	Token  string    `json:"token"`
	Time   time.Time `json:"time"`
	// ArmEnv maps each arm key to its value exactly as the process received
	// it, or null when the process did not receive it.
	ArmEnv map[string]*string `json:"arm_env"`
	// Scheduler holds allocation details (for example SLURM_JOB_ID, or a
	// rank pod's SchedulerKubernetesNode) when set.
	Scheduler map[string]string `json:"scheduler,omitempty"`
	Command   []string          `json:"command"`
	// User is the user the rank runs as when its role names one (the
	// wrapper registers first, then takes the user's ids).
	User string `json:"user,omitempty"`
	// ExeSHA256 is the SHA-256 of the executable the wrapper started, when
	// the arms are builds.
	ExeSHA256 string `json:"exe_sha256,omitempty"`
}

// The Registration.Scheduler keys of a pod under Kubernetes, each the
// variable the downward API sets in the pod (the controller's and every
// rank pod's): its name, its node (spec.nodeName) and its namespace.
const (
	SchedulerKubernetesPod       = "ABBENCH_KUBERNETES_POD"
	SchedulerKubernetesNode      = "ABBENCH_KUBERNETES_NODE"
	SchedulerKubernetesNamespace = "ABBENCH_KUBERNETES_NAMESPACE"
	// SchedulerKubernetesPodIP is a rank pod's address (status.podIP):
	// without the node's network, where a rank listens for the others.
	SchedulerKubernetesPodIP = "ABBENCH_KUBERNETES_POD_IP"
)

// Launch is what a rank started by srun needs, written by the controller
// into the token namespace (mode 0600, removed at teardown): one srun step
// starts every rank of a role, and each rank finds its own file by its
// SLURM_PROCID. A file carries any value exactly (commas, spaces, '=',
// quotes, newlines, UTF-8), where srun --export would split or drop them.
type Launch struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Log  string   `json:"log"`
	// Dir, when set, is the rank's working directory, which the wrapper
	// enters: a bundle every run of an image shares cannot name a run's.
	Dir string `json:"dir,omitempty"`
}

// Plan is a campaign's plan.json: what abbench run will do and, as runs
// end, what each did.
type Plan struct {
	Schema string `json:"schema"` // PlanSchema
	// ID is the plan's own identity, random, made with it: the seed only
	// fixes the order, so two plans of one scenario and seed are two
	// campaigns by their ID, never one. It joins the plan digest; plans
	// made before it have none, and are told apart by their fixed part
	// alone (as before).
	ID            string `json:"id,omitempty"`
	Scenario      string `json:"scenario"`
	MatchedDigest string `json:"matched_digest"`
	Launcher      string `json:"launcher"`
	Order         string `json:"order"`
	Seed          uint64 `json:"seed"`
	// OrderDrawn says an abba plan's pairs of blocks after the first run
	// abba or baab as Seed draws them (campaign.DrawnOrder); plans made
	// before alternate from the first block, and resume so. The runs'
	// arms and the seed are in the plan digest each run signs.
	OrderDrawn bool `json:"order_drawn,omitempty"`
	Repeat     int  `json:"repeat"`
	// Warmup is the number of warm-up blocks (one run of every arm each)
	// at the start: run and recorded, left out of the statistics.
	Warmup int `json:"warmup,omitempty"`
	// Concurrent says the runs of each block ran at the same time, each in
	// an allocation of its own (abbench run --concurrent); each run's
	// status.json says when it started and ended.
	Concurrent bool `json:"concurrent,omitempty"`
	// Sequential, when set, says the campaign looks after every block from
	// MinPairs on and stops at the first decided verdict; Runs then lists
	// every run up to MaxPairs, and those after the stop never run.
	Sequential *Sequential `json:"sequential,omitempty"`
	// Containers pin every container role's image to a digest before the
	// first run: each run starts its containers from these, whatever the
	// image's name names by then.
	Containers []ContainerImage `json:"containers,omitempty"`
	Runs       []PlannedRun     `json:"runs"`
	// Looks are the sequential design's looks, as they were taken.
	Looks []Look `json:"looks,omitempty"`
	// Decided says why a sequential campaign stopped before MaxPairs.
	Decided string `json:"decided,omitempty"`
	// Resume is what abbench run --resume holds the campaign to; it is
	// no part of the fixed plan Ref digests.
	Resume *Resumable `json:"resume,omitempty"`
	// Cells are a sweep's cells, in cell order (cells.go).
	Cells []PlannedCell `json:"cells,omitempty"`
	// CellsDecided are the cells of a sweep a sequential look decided:
	// their later runs are not run.
	CellsDecided map[string]string `json:"cells_decided,omitempty"`
}

// Sequential is a sequential design as plan.json and each run's signed
// campaign reference record it: the looks, and the level each look tests
// at (chosen so that all looks together hold Alpha): LookAlpha at every
// look, or with Boundary "obf-spending" (decide.OBFSpending) LookAlphas
// one by one, and Futility the conditional power below which a look ends
// the campaign undecided (decide.Sequential says what each means).
type Sequential struct {
	MinPairs   int       `json:"min_pairs"`
	MaxPairs   int       `json:"max_pairs"`
	Alpha      float64   `json:"alpha"`
	LookAlpha  float64   `json:"look_alpha"`
	Boundary   string    `json:"boundary,omitempty"`
	LookAlphas []float64 `json:"look_alphas,omitempty"`
	Futility   float64   `json:"futility,omitempty"`
	// SkipUnreachable says a look whose test cannot reach its level is
	// not taken, its alpha spent by the looks after it
	// (decide.Sequential.Looks); plans made before take every look.
	SkipUnreachable bool `json:"skip_unreachable,omitempty"`
	// Rule is the comparison every look makes, fixed with the plan before
	// any run: whether a look decided, and so whether the runs after it
	// were needed, is judged by it whatever options a later compare is
	// given. Plans made before it was recorded have none; their stop is
	// judged by the compare's options.
	Rule *StopRule `json:"rule,omitempty"`
}

// StopRule is what a sequential campaign's looks compare ("" and 0 are
// the defaults compare takes from the runs: the scenario's baseline arm,
// headline metric, decide.DefaultRule's smallest effect, the auto
// method).
type StopRule struct {
	Baseline string  `json:"baseline,omitempty"`
	Metric   string  `json:"metric,omitempty"`
	Effect   float64 `json:"smallest_effect_pct,omitempty"`
	Method   string  `json:"method,omitempty"`
	// Metrics is the number of metrics compared together as one family
	// (0 or 1: the metric alone): each treatment of each is held to its
	// share of alpha at every look, the stop's look at the headline too.
	Metrics int `json:"metrics,omitempty"`
	// Cells is the number of a sweep's cells compared as one family (0
	// for a campaign of no sweep): each cell's tests are held to their
	// share of alpha at every look, a cell's stop too.
	Cells int `json:"cells,omitempty"`
}

// Look is one look of a sequential campaign: after Pairs blocks, the
// comparison's verdict (a censored look stops the campaign too).
type Look struct {
	Pairs   int      `json:"pairs"`
	Verdict string   `json:"verdict"`
	Delta   *float64 `json:"delta_pct,omitempty"`
	P       *float64 `json:"p,omitempty"` // only where the look decided
	Alpha   float64  `json:"alpha,omitempty"`
	Cell    string   `json:"cell,omitempty"` // the sweep's cell the look compared
}

// CampaignRef is what a run's signed bundle says of the campaign it
// belongs to: the plan as it was fixed before any run started (scenario,
// order, seed, every run's index and arm). Compare holds the runs it is
// given against it, so a run removed from (or slipped into) a campaign is
// caught even when plan.json was edited to match: plan.json is not signed,
// each run's provenance is.
type CampaignRef struct {
	PlanDigest    string   `json:"plan_digest"` // SHA-256 of the fixed part, as Fixed encodes it
	Scenario      string   `json:"scenario"`
	MatchedDigest string   `json:"matched_digest"`
	Order         string   `json:"order"`
	Seed          uint64   `json:"seed"`
	Runs          []string `json:"runs"`  // N-ARM of every run, in plan order
	Index         int      `json:"index"` // this run's
	// Arms is the number of arms of each block (a run of every arm, in
	// the order's sequence); blocks pair the runs of an abba campaign.
	Arms       int         `json:"arms,omitempty"`
	Warmup     int         `json:"warmup,omitempty"`
	Sequential *Sequential `json:"sequential,omitempty"`
	// Cell is this run's cell of a sweep, Cells every cell of the plan
	// (cells.go); Runs and MatchedDigest are then the cell's.
	Cell  string   `json:"cell,omitempty"`
	Cells []string `json:"cells,omitempty"`
}

// Block is the block (0-based) run index (1-based) belongs to: a block
// holds a run of every arm of every cell.
func (c *CampaignRef) Block(index int) int {
	if c.Arms <= 0 {
		return -1
	}
	return (index - 1) / (c.Arms * max(len(c.Cells), 1))
}

// Ref is the campaign reference of run index of the plan.
func (p *Plan) Ref(index int) CampaignRef {
	ref := CampaignRef{Scenario: p.Scenario, MatchedDigest: p.MatchedDigest, Order: p.Order, Seed: p.Seed, Index: index, Runs: []string{},
		Warmup: p.Warmup, Sequential: p.Sequential}
	arms := map[string]bool{}
	for _, r := range p.Runs {
		arms[r.Arm] = true
	}
	ref.Arms = len(arms)
	ref.Runs = p.cellRuns(&ref)
	// The design's fields join the digest only when set, so the digests of
	// plans made before they existed stay what their bundles signed.
	fixed, _ := json.Marshal(struct {
		ID                             string `json:",omitempty"`
		Scenario, MatchedDigest, Order string
		Seed                           uint64
		Runs                           []string
		Arms                           int         `json:",omitempty"`
		Warmup                         int         `json:",omitempty"`
		Sequential                     *Sequential `json:",omitempty"`
		Cell                           string      `json:",omitempty"`
		Cells                          []string    `json:",omitempty"`
	}{p.ID, ref.Scenario, ref.MatchedDigest, ref.Order, ref.Seed, ref.Runs, designArms(p, ref.Arms), ref.Warmup, ref.Sequential, ref.Cell, ref.Cells})
	sum := sha256.Sum256(fixed)
	ref.PlanDigest = hex.EncodeToString(sum[:])
	return ref
}

// designArms is the arm count the plan digest covers: only for the orders
// that pair runs, the only ones that read it.
func designArms(p *Plan, arms int) int {
	if p.Order == "abba" || p.Sequential != nil || p.Warmup > 0 {
		return arms
	}
	return 0
}

// PlannedRun is one run of a plan.
type PlannedRun struct {
	Index int    `json:"index"`
	Arm   string `json:"arm"`
	Dir   string `json:"dir"`
	// Allocation is the run's allocation (local-PID, slurm-JOBID), in submit order.
	Allocation string   `json:"allocation,omitempty"`
	Token      string   `json:"token,omitempty"`
	Result     *Outcome `json:"result,omitempty"`
	Accepted   *bool    `json:"evidence_accepted,omitempty"`
	// Warmup marks a warm-up run: run and recorded, left out of the
	// statistics.
	Warmup bool `json:"warmup,omitempty"`
	// Nodes are the nodes the run was pinned to: those of its block's
	// first run (abbench run --pair-nodes).
	Nodes []string `json:"nodes,omitempty"`
	// Interrupted says the campaign was stopped (SIGINT, SIGTERM) while
	// the run ran: its attempt is kept, and abbench run --resume runs it
	// again as a new attempt.
	Interrupted bool `json:"interrupted,omitempty"`
	// Cell is the run's cell of a sweep ("" outside one).
	Cell string `json:"cell,omitempty"`
}

// Outcome is how a run's allocation ended, as its launcher said: what a
// launcher's Wait returns, recorded as is.
type Outcome struct {
	State        string    `json:"state"` // a launcher state: succeeded, failed, cancelled
	ExitCode     int       `json:"exit_code"`
	AllocationID string    `json:"allocation_id"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended"`
	Detail       string    `json:"detail,omitempty"`
}

// ControllerFailed says the allocation's controller did not end with a
// result of its own: it failed, a signal ended it, or (-1) it never ran,
// as a requeued Slurm job cancelled before its new attempt ran. The run
// directory's newest attempt is then no result of this run, whatever its
// status and evidence say: a comparison censors it and a summary says so.
// Exit status 3 is a controller that ran and censored its evidence
// (abbench's exit status for censored): its files are its result.
func (o *Outcome) ControllerFailed() bool {
	return o != nil && o.ExitCode != 0 && o.ExitCode != 3
}
