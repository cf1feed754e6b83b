// Package reason holds the stable codes for why evidence is not accepted.
// CI keys on the codes; the detail is a sentence naming arm, role, rank and
// numbers. Reasons are values, not log lines: they travel in status files,
// evidence and comparisons.
package reason

import (
	"fmt"
	"strings"
)

// Code is a stable censor reason code.
type Code string

// Every code abbench emits: docs/evidence.md lists each (a test holds
// them together), and no package makes a code of its own.
const (
	ArmEnvMissing          Code = "arm-env-missing"
	ArmEnvLeak             Code = "arm-env-leak" // a role without arm_env received an arm key
	ArmModeMismatch        Code = "arm-mode-mismatch"
	RankMissing            Code = "rank-missing"
	PhaseIncomplete        Code = "phase-incomplete"
	RequestsFailed         Code = "requests-failed"
	ThroughputInvalid      Code = "throughput-invalid"
	DigestMissing          Code = "digest-missing"
	DigestAlgorithm        Code = "digest-algorithm"
	DigestRankDisagreement Code = "digest-rank-disagreement"
	DigestArmMismatch      Code = "digest-arm-mismatch"
	WorkloadMismatch       Code = "workload-mismatch" // the ranks served other prompts than the declared ones
	FactCount              Code = "fact-count"
	UncleanShutdown        Code = "unclean-shutdown"
	MachineMismatch        Code = "machine-mismatch"
	ConfigMismatch         Code = "config-mismatch"
	StaleEvidence          Code = "stale-evidence"
	DeadlineExceeded       Code = "deadline-exceeded"
	SignatureInvalid       Code = "signature-invalid"
	RankExited             Code = "rank-exited" // a rank ended before teardown
	Interrupted            Code = "interrupted" // abbench was asked to stop
	LaunchFailed           Code = "launch-failed"
	DuplicateRun           Code = "duplicate-run" // the same run given twice to a comparison
	ArmMissing             Code = "arm-missing"   // an arm (a CI stage) has no run
	RunMissing             Code = "run-missing"   // a run of a campaign's plan left nothing, or one not in the plan
	BundleInvalid          Code = "bundle-invalid"
	ControllerFailed       Code = "controller-failed"      // the arm controller itself failed (exit 1 or 2)
	BuildMismatch          Code = "build-mismatch"         // a rank ran another arm's build, or none ran the arm's
	ImageMismatch          Code = "image-mismatch"         // a rank's container is of another image than the run pinned, or two runs pinned two images
	WriteFailed            Code = "write-failed"           // abbench could not write (or remove) a file of its own: status.json, plan.json, the live registry, a coordination file
	SetupFailed            Code = "setup-failed"           // a setup hook failed: no role started
	TeardownFailed         Code = "teardown-failed"        // a teardown hook failed: the next run may not start from the state this one began in
	OutputLengthMismatch   Code = "output-length-mismatch" // the arms generated different amounts of output ({output_tokens: equal})
	GPUThrottled           Code = "gpu-throttled"          // a GPU was held back by power, thermal or hardware slowdown for much of the measured phase
	TelemetryMissing       Code = "telemetry-missing"      // the GPU telemetry the scenario requires was not sampled, or not all of the phase
	ClockMismatch          Code = "clock-mismatch"         // the arms' mean SM clocks differ by more than the smallest effect (telemetry.sm_clocks: censor)
	ServerMetric           Code = "server-metric"          // a server's own metric is not what a server_metric criterion requires, or could not be read
)

// Reason is one censor reason.
type Reason struct {
	Code   Code   `json:"code"`
	Arm    string `json:"arm,omitempty"`
	Role   string `json:"role,omitempty"`
	Rank   *int   `json:"rank,omitempty"`
	Detail string `json:"detail"`
	// NothingServed marks a requests-failed reason of a run in which not
	// one request succeeded (a client pointed at a wrong port, a server
	// that refused all): whatever a served request would have left (the
	// record's figures, digests, activations, counters) only follows from
	// it, so Group holds those as its consequences. Never stored: the
	// evidence sets it from its record's counts when it groups its
	// reasons (evidence.RootCausesFirst), so evidence written before it
	// existed is re-derived unchanged.
	NothingServed bool `json:"-"`
	// Unmeasured marks an arm-mode-mismatch that says a rank logged no mode
	// at all, not another arm's: in a run another reason stopped, it
	// follows from that stop (Group). Never stored, as NothingServed.
	Unmeasured bool `json:"-"`
	// Consequences are reasons that only follow from this one (Group):
	// a run stopped before its client produced no record, for example.
	Consequences []Reason `json:"consequences,omitempty"`
	// Repeats counts reasons Group dropped as this same fact in other words.
	Repeats int `json:"repeats,omitempty"`
	// Runs are the runs of a comparison the reason was found in (Merge
	// makes one reason of the same fact in several runs).
	Runs []string `json:"runs,omitempty"`
}

// New builds a reason with a formatted detail.
func New(code Code, format string, args ...any) Reason {
	return Reason{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// At sets where the reason applies.
func (r Reason) At(arm, role string, rank int) Reason {
	r.Arm, r.Role, r.Rank = arm, role, &rank
	return r
}

func (r Reason) String() string {
	if head := r.Head(); head != string(r.Code) {
		return head + ": " + r.Said()
	}
	return fmt.Sprintf("%s: %s", r.Code, r.Said())
}

// Head is the reason's code and where it was found, without its detail:
// "requests-failed (arm async)", for a line that points at reasons a
// report printed whole.
func (r Reason) Head() string {
	var where []string
	if r.Arm != "" {
		where = append(where, "arm "+r.Arm)
	}
	if r.Role != "" {
		w := "role " + r.Role
		if r.Rank != nil {
			w += fmt.Sprintf(" rank %d", *r.Rank)
		}
		where = append(where, w)
	}
	if len(where) == 0 {
		return string(r.Code)
	}
	return fmt.Sprintf("%s (%s)", r.Code, strings.Join(where, ", "))
}

// shownRuns is how many of a reason's runs its text names; the JSON
// holds them all.
const shownRuns = 3

// Said is the detail and the runs it was found in, as reports print it:
// "(run R)" for one, "(N runs: R1, R2, R3 and K more)" for several.
func (r Reason) Said() string {
	switch n := len(r.Runs); {
	case n == 0:
		return r.Detail
	case n == 1:
		return fmt.Sprintf("%s (run %s)", r.Detail, r.Runs[0])
	case n <= shownRuns:
		return fmt.Sprintf("%s (%d runs: %s)", r.Detail, n, strings.Join(r.Runs, ", "))
	default:
		return fmt.Sprintf("%s (%d runs: %s and %d more)", r.Detail, n, strings.Join(r.Runs[:shownRuns], ", "), n-shownRuns)
	}
}

// Lines is the reason and, indented under it, its consequences, for text
// reports.
func (r Reason) Lines() []string {
	first := r.String()
	switch {
	case r.Repeats == 1:
		first += " (said once more, in other words)"
	case r.Repeats > 1:
		first += fmt.Sprintf(" (said %d more times, in other words)", r.Repeats)
	}
	lines := []string{first}
	for _, c := range r.Consequences {
		lines = append(lines, "  consequence: "+c.String())
	}
	return lines
}

// Error wraps reasons as an error, for callers that stop on them.
type Error struct{ Reasons []Reason }

func (e *Error) Error() string {
	lines := make([]string, len(e.Reasons))
	for i, r := range e.Reasons {
		lines[i] = r.String()
	}
	return strings.Join(lines, "\n")
}
