package compare

import (
	"time"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// Result is a comparison; its JSON is the --format json report
// (docs/evidence.md).
type Result struct {
	Schema  string          `json:"schema"` // ResultSchema
	Verdict string          `json:"verdict"`
	Reasons []reason.Reason `json:"reasons"`
	Metric  string          `json:"metric"`
	// Unit is the metric's unit as its name says it (MetricUnit: "ms",
	// "tokens/s"), "" where the name says none.
	Unit           string         `json:"unit"`
	HigherIsBetter bool           `json:"higher_is_better"`
	Baseline       string         `json:"baseline"`
	Scenario       string         `json:"scenario"`
	MatchedDigest  string         `json:"matched_digest"`
	Workload       *digest.Digest `json:"workload_digest"`
	Arms           []Arm          `json:"arms"`
	Deltas         []Delta        `json:"deltas"`
	// Design is how the runs were made, as the statistics read it.
	Design   Design       `json:"design"`
	Warnings []string     `json:"warnings"`
	Runs     []RunSummary `json:"runs"`
	// PlotURL is Options.PlotURL.
	PlotURL string `json:"plot_url,omitempty"`
	// Machine describes the machines the runs ran on (the report's
	// machine line), when a run recorded them: GPUs with driver, CUDA,
	// clocks, ECC, power limit and MIG mode, the CUDA runtime, the image
	// and its digest, the NCCL versions the ranks reported.
	Machine string `json:"machine,omitempty"`
	// GPUs are what each arm's GPU samples of the measured phase say
	// (mean clocks, power, time throttled by reason), when runs took them.
	GPUs []ArmGPU `json:"gpus,omitempty"`
	// Builds are the arms' builds, when the arms are builds.
	Builds []rundir.BuildFact `json:"builds,omitempty"`
	// Stored is the comparison with a stored baseline, when one was given.
	Stored *Stored `json:"stored,omitempty"`
	// Stopped, when set, says a sequential campaign stopped at a look its
	// own signed rule decided: the planned runs after it were not needed.
	Stopped *Stop `json:"stopped,omitempty"`
	// GateUndecided, when set, says --fail-on regression cannot gate this
	// comparison, since no test decided it (also among the warnings).
	GateUndecided string `json:"-"`
	// Unfinished is true when the only reason to censor is that a
	// sequential campaign's runs end before a look decided: a campaign in
	// progress looks so.
	Unfinished bool `json:"-"`
}

// Arm is one arm's sample of the metric.
type Arm struct {
	Name   string            `json:"name"`
	Env    map[string]string `json:"env"`
	N      int               `json:"n"`
	Values []float64         `json:"values"`
	Median float64           `json:"median"`
	Mean   float64           `json:"mean"`
	CV     float64           `json:"cv"` // coefficient of variation, a fraction
}

// Delta is one treatment against the baseline.
type Delta struct {
	Arm string `json:"arm"`
	// Pct is the change in percent (of the paired log ratios, or of the
	// arms' geometric means); nil when none can be computed.
	Pct      *float64    `json:"delta_pct"`
	Interval *[2]float64 `json:"interval"` // at 1-Alpha
	// P is the test's p; reports print it only where it decided.
	P      *float64 `json:"p"`
	Alpha  float64  `json:"alpha"`
	Method string   `json:"method"`
	// N is the number of pairs, or the smaller arm's runs when unpaired.
	N int `json:"n"`
	// NowThen are an arm's runs now and in a stored baseline, whose
	// counts may differ (N is then the smaller; How says both); nil
	// elsewhere.
	NowThen  *[2]int `json:"now_then,omitempty"`
	Paired   bool    `json:"paired"`
	Effect   float64 `json:"effect_pct"`
	EffectOf string  `json:"effect_source"`
	Verdict  string  `json:"verdict"`
	Why      string  `json:"why"`
	// Meaning says what the verdict lets a reader conclude.
	Meaning string `json:"meaning,omitempty"`
	// Period is the period (order) effect of pairs run in both orders.
	Period *decide.Period `json:"period,omitempty"`
	// StopBias is how far a sequential campaign's decided change is
	// biased away from zero at its noise.
	StopBias *decide.Bias `json:"stop_bias,omitempty"`
	// Stagewise says P and Interval are the sequential design's
	// stagewise ones at its stop, at level Alpha (decide.Sequential.Decide).
	Stagewise bool `json:"stagewise,omitempty"`
	// Repeated says P and Interval are the look's own at its level Alpha,
	// the boundary's repeated confidence interval: the pairs ended
	// before the test's own stop (decide.Decision.Repeated).
	Repeated bool `json:"repeated,omitempty"`
	// HolmAdjusted says P is Holm-adjusted for a family of tests (Family,
	// Sweep), held to level PLevel: the look's where a sequential
	// campaign's family was not the one its plan signed, else Alpha.
	HolmAdjusted bool    `json:"holm_adjusted,omitempty"`
	PLevel       float64 `json:"p_level,omitempty"`
	// Looks are a sequential campaign's looks, recomputed from the runs.
	Looks   []rundir.Look `json:"looks,omitempty"`
	Display string        `json:"display"` // "+2.41%", "~" when not decided
}

// RunSummary is one input run, for reports.
type RunSummary struct {
	Path     string               `json:"path"`
	Arm      string               `json:"arm"`
	Token    string               `json:"token"`
	Accepted bool                 `json:"accepted"`
	Value    *float64             `json:"value"`
	Criteria []evidence.Criterion `json:"criteria"`
	// Started, Seconds and Hosts are when, how long and where the run ran,
	// from its signed provenance, else its status.json (zero when neither).
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	Hosts   []string  `json:"hosts"`
}
