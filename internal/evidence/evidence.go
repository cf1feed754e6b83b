package evidence

import (
	"fmt"
	"os"
	"slices"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Schema names the evidence.json format.
const Schema = "abbench-evidence-v1"

// RulesVersion numbers the rules that derive evidence from logs and
// records. It goes up whenever the same bytes would derive other evidence
// (a reason's code or order, a new field of a record), so verification can
// tell a bundle made by older rules from one edited after it was signed.
// 1 is every bundle made before the rules were numbered (they carry none).
//
//	2: a record says its unit of work, its tool's verdict, and whether it
//	   could be read; an unreadable record is censored throughput-invalid
//	   first, not requests-failed.
//	3: the headline in a criterion's detail is written for people
//	   (10,414, not 1.041e+04), and an nccl-tests record lists the message
//	   sizes it swept (sweep).
//	4: a serving record holds every latency its tool wrote (p99_ttft_ms,
//	   median_itl_ms, ...), the output tokens it generated, and, under the
//	   scenario's slo:, its goodput.
//	5: the GPU samples of the measured phase (gpu_telemetry), and the
//	   reasons they give: gpu-throttled, telemetry-missing; and the
//	   server_metric criteria's values (server_metrics).
//	6: a serving record names its first failed request (first_failure:
//	   abbench's client's, or vLLM's first errors entry), which
//	   requests-failed quotes: a bundle of rules 5 whose record names one
//	   is derived again otherwise, and is held to its judgment only.
//	7: "only N of M ROLE ranks have a measured mode" names its arm and
//	   role, so a report can hold it under the stop that kept the ranks
//	   from logging one.
const RulesVersion = 7

// Evidence is what one arm run proves.
type Evidence struct {
	Schema string `json:"schema"`
	// Rules is the RulesVersion that derived this evidence (see
	// DerivedBy: left out, 1).
	Rules         int               `json:"rules,omitempty"`
	Scenario      string            `json:"scenario"`
	MatchedDigest string            `json:"matched_digest"`
	Arm           string            `json:"arm"`
	ArmEnv        map[string]string `json:"arm_env"`
	// Cell is the run's cell of a sweep (the scenario's matrix:), ""
	// outside one: compare compares a sweep cell by cell.
	Cell string `json:"cell,omitempty"`
	// Arms are every arm of the scenario, so a comparison can say which is missing.
	Arms []string `json:"arms"`
	// Baseline is the scenario's baseline arm.
	Baseline string `json:"baseline"`
	// NoiseThreshold is the scenario's noise threshold in percent.
	NoiseThreshold float64 `json:"noise_threshold_pct"`
	// HeadlineMetric is the record metric compared by default.
	HeadlineMetric string `json:"headline_metric,omitempty"`
	// HigherIsBetter is the scenario's declared direction of the headline
	// metric (throughput.higher_is_better); nil when it declares none.
	HigherIsBetter *bool `json:"higher_is_better,omitempty"`
	// Metrics are the metrics the scenario compares together
	// (throughput.metrics), when it declares them.
	Metrics []string `json:"metrics,omitempty"`
	// OutputTokensWithin is the percentage by which the arms' output
	// tokens per run may differ ({output_tokens: equal}, within: N%), nil
	// when the scenario does not hold the arms to equal work.
	OutputTokensWithin *float64        `json:"output_tokens_within,omitempty"`
	Token              string          `json:"token"`
	RunState           string          `json:"run_state"`
	Accepted           bool            `json:"accepted"`
	Reasons            []reason.Reason `json:"reasons"`
	Criteria           []Criterion     `json:"criteria"`
	// Workload is the activation digest the ranks agree on (without an
	// activation rule, the digest of what the openai client sent).
	Workload *digest.Digest `json:"workload_digest"`
	// Sent is what the openai client sent, when the scenario has one.
	Sent       *SentDigest    `json:"sent,omitempty"`
	Throughput *Record        `json:"throughput"`
	Ranks      []RankFacts    `json:"ranks"`
	Configs    map[string]any `json:"configs,omitempty"`
	// Inputs are the files besides the logs the evidence was derived from
	// (the record, activation records, configs), relative to the run directory.
	Inputs []string `json:"inputs"`
	// GPUTelemetry is what the GPUs sampled during the measured phase
	// say (telemetry.go), when the run sampled them.
	GPUTelemetry *GPUTelemetry `json:"gpu_telemetry,omitempty"`
	// ServerMetrics are what the server_metric criteria read of the
	// roles' Prometheus endpoints (servermetrics.go).
	ServerMetrics []ServerMetric `json:"server_metrics,omitempty"`
	// Attached are what the attached servers' own answers said of the
	// arm before the client (attached.go).
	Attached []AttachedProof `json:"attached,omitempty"`
	// Build is the arm's build, hashed when the run started, when the arms
	// are builds.
	Build *rundir.BuildFact `json:"build,omitempty"`
}

// DerivedBy is the RulesVersion that derived e.
func (e *Evidence) DerivedBy() int { return max(e.Rules, 1) }

// Activation is one rank's activation-sequence fact.
type Activation struct {
	Count     uint64 `json:"count"`
	Digest    string `json:"digest"`
	Algorithm string `json:"algorithm"`
}

// RankFacts are the facts of one rank's measured lifecycle.
type RankFacts struct {
	Role       string            `json:"role"`
	Rank       int               `json:"rank"`
	Scope      Scope             `json:"scope"`
	BytesRead  int64             `json:"bytes_read"`
	Measured   [2]int64          `json:"measured"` // byte offsets of the measured lifecycle's first and last line
	Mode       map[string]string `json:"mode,omitempty"`
	Activation *Activation       `json:"activation,omitempty"`
	// ActivationRecords is the rank's per-prompt records file, relative to
	// the run directory, when the scenario names one and it exists.
	ActivationRecords string                       `json:"activation_records,omitempty"`
	Counters          map[string]int64             `json:"counters,omitempty"`
	Facts             map[string]map[string]string `json:"facts,omitempty"`
}

// Criterion is one acceptance criterion, evaluated.
type Criterion struct {
	ID     string        `json:"id"`
	Kind   string        `json:"kind"`
	OK     bool          `json:"ok"`
	Detail string        `json:"detail"`
	Codes  []reason.Code `json:"codes,omitempty"`
}

// Options change where Collect reads.
type Options struct {
	// ScopedLogs says each log in dir holds only its scoped bytes (as in a
	// bundle): it is read from its start, while the facts still name the
	// original offsets.
	ScopedLogs bool
	// Unreadable maps a log (relative to the run directory) to why its
	// scope could not be read originally; with ScopedLogs, such a log is
	// reported as it was then.
	Unreadable map[string]string
	// MatchedDigest is the scenario's MatchedDigest, from a caller that
	// derives many runs' evidence from one parsed scenario ("": computed).
	// A run whose recorded image pins change the scenario computes it.
	MatchedDigest string
	// Status is the run's status.json as the caller read it (a verifier,
	// from the bytes it hashed); nil: read from dir.
	Status *rundir.Status
	// Files are files of dir (by their slash-separated paths relative to
	// it) as the caller read them: a verifier holds the bytes it hashed,
	// so what it derives is exactly what it hashed, read once. A file
	// held is read from its bytes, never from dir; one not held, from dir.
	Files map[string][]byte
	// Rules are the rules' patterns compiled once for many derivations
	// (a verifier's of many bundles); nil: compiled for this one.
	Rules *Rules
}

// Collect derives the evidence of the run whose attempt directory is dir
// (holding status.json). It reads only; it starts nothing.
func Collect(s *scenarios.Scenario, arm, dir string) (*Evidence, error) {
	return CollectWith(s, arm, dir, Options{})
}

// CollectWith is Collect with options.
func CollectWith(s *scenarios.Scenario, arm, dir string, opts Options) (*Evidence, error) {
	stp := opts.Status
	if stp == nil {
		var err error
		if stp, err = rundir.ReadStatus(dir); err != nil {
			return nil, fmt.Errorf("reading the run's status: %w", err)
		}
	}
	st := *stp
	if st.Arm != arm {
		return nil, fmt.Errorf("%s is a run of arm %q, not %q", dir, st.Arm, arm)
	}
	// A scenario read again (replay, a bundle's) knows no digest of its
	// images: it is held to those the run recorded.
	pinned := s.WithPins(st.Containers)
	matched := opts.MatchedDigest
	if matched == "" || pinned != s {
		matched = pinned.MatchedDigest()
	}
	s = pinned
	e := &Evidence{Schema: Schema, Rules: RulesVersion, Scenario: s.Name, MatchedDigest: matched, Arm: arm, ArmEnv: s.Arms[arm].Env,
		Cell: s.CellName(), Arms: s.ArmOrder, Baseline: s.Baseline, NoiseThreshold: s.NoiseThreshold,
		Token: st.Token, RunState: st.State, Reasons: []reason.Reason{}, Criteria: []Criterion{}, Inputs: []string{}}
	if st.MatchedDigest != e.MatchedDigest {
		e.reason(reason.New(reason.ConfigMismatch, "the run was made with matched digest %s, but this scenario's is %s", st.MatchedDigest, e.MatchedDigest))
	}
	for _, r := range st.Reasons {
		e.reason(r)
	}
	for _, b := range st.Builds {
		if b.Arm == arm {
			e.Build = &b
		}
	}
	if s.HasBuilds() && e.Build == nil {
		e.reason(reason.New(reason.BuildMismatch, "the arms are builds, but the run recorded no build of arm %s: nothing says what it ran", arm))
	}
	if st.State != rundir.StateSucceeded && len(st.Reasons) == 0 {
		e.reason(reason.New(reason.RankExited, "the run ended %s", st.State))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer readonly.Close(root)
	c := collector{s: s, e: e, st: &st, dir: dir, opts: opts, root: root}
	c.ranks()
	c.sent()
	c.throughput()
	c.telemetry()
	c.attached()
	c.criteria()
	e.Accepted = len(e.Reasons) == 0
	for _, cr := range e.Criteria {
		e.Accepted = e.Accepted && cr.OK
	}
	return e, nil
}

func (e *Evidence) reason(r reason.Reason) {
	if r.Arm == "" {
		r.Arm = e.Arm
	}
	r.Detail = redact.URL(r.Detail)
	e.Reasons = append(e.Reasons, r)
}

// RootCausesFirst is the evidence's reasons grouped root causes first
// (reason.Group), each marked from the evidence's own facts, never from a
// detail's words: the run's requests-failed NothingServed where the record
// says not one request succeeded (a client that reached no server is the
// cause; the digests, activations and counters no request produced are
// its consequences), and an arm-mode-mismatch of a rank role Unmeasured
// where it says a rank logged no mode at all (a rank stopped before it
// could is no mode of another arm).
func (e *Evidence) RootCausesFirst() []reason.Reason {
	rs := slices.Clone(e.Reasons)
	none := e.Throughput != nil && e.Throughput.Completed == 0
	for i := range rs {
		r := &rs[i]
		r.NothingServed = none && r.Code == reason.RequestsFailed
		r.Unmeasured = r.Code == reason.ArmModeMismatch && e.unmeasured(r.Role, r.Rank)
	}
	return reason.Group(rs)
}

// unmeasured says whether role is a rank role of the evidence (one whose
// ranks' facts it holds; an attached server's is not) and rank, or with
// no rank some rank of it, has no measured mode.
func (e *Evidence) unmeasured(role string, rank *int) bool {
	if role == "" || !slices.ContainsFunc(e.Ranks, func(f RankFacts) bool { return f.Role == role }) {
		return false
	}
	if rank == nil {
		return true // "only N of M ROLE ranks have a measured mode"
	}
	i := slices.IndexFunc(e.Ranks, func(f RankFacts) bool { return f.Role == role && f.Rank == *rank })
	return i < 0 || e.Ranks[i].Mode == nil
}
