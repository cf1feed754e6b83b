package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/abbench/abbench/reason"
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
}

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
	Role  string    `json:"role"`
	Rank  int       `json:"rank"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Token string    `json:"token"`
	Time  time.Time `json:"time"`
	// ArmEnv maps each arm key to its value exactly as the process received
	// it, or null when the process did not receive it.
	ArmEnv map[string]*string `json:"arm_env"`
	// Scheduler holds allocation details (for example SLURM_JOB_ID) when set.
	Scheduler map[string]string `json:"scheduler,omitempty"`
	Command   []string          `json:"command"`
}

// Launch is what a rank started by srun needs, written by the controller
// into the token namespace (mode 0600, removed at teardown): one srun step
// starts every rank of a role, and each rank finds its own file by its
// SLURM_PROCID. A file carries any value exactly (commas, spaces, '=',
// quotes, newlines, UTF-8), where srun --export would split or drop them.
type Launch struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Log  string   `json:"log"`
}

// Plan is a campaign's plan.json: what abbench run will do and, as runs
// end, what each did.
type Plan struct {
	Scenario      string       `json:"scenario"`
	MatchedDigest string       `json:"matched_digest"`
	Launcher      string       `json:"launcher"`
	Order         string       `json:"order"`
	Seed          uint64       `json:"seed"`
	Repeat        int          `json:"repeat"`
	Runs          []PlannedRun `json:"runs"`
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
}

// Ref is the campaign reference of run index of the plan.
func (p *Plan) Ref(index int) CampaignRef {
	ref := CampaignRef{Scenario: p.Scenario, MatchedDigest: p.MatchedDigest, Order: p.Order, Seed: p.Seed, Index: index, Runs: []string{}}
	for _, r := range p.Runs {
		ref.Runs = append(ref.Runs, RunID(r.Index, r.Arm))
	}
	fixed, _ := json.Marshal(struct {
		Scenario, MatchedDigest, Order string
		Seed                           uint64
		Runs                           []string
	}{ref.Scenario, ref.MatchedDigest, ref.Order, ref.Seed, ref.Runs})
	sum := sha256.Sum256(fixed)
	ref.PlanDigest = hex.EncodeToString(sum[:])
	return ref
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
}

// Outcome is how a run's allocation ended, as its launcher said.
type Outcome struct {
	State        string    `json:"state"`
	ExitCode     int       `json:"exit_code"`
	AllocationID string    `json:"allocation_id"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended"`
	Detail       string    `json:"detail,omitempty"`
}
