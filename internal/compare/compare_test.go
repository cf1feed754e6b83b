package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

var workload = digest.Digest{Algorithm: digest.TokensOrdered, Count: 256, Hex: strings.Repeat("ab", 32)}

func ev(arm, token string, value float64) *evidence.Evidence {
	w := workload
	return &evidence.Evidence{
		Scenario: "s", MatchedDigest: "m", Arm: arm, Arms: []string{"async", "blocking"}, Baseline: "blocking",
		ArmEnv: map[string]string{"T": map[string]string{"async": "1", "blocking": "0"}[arm]}, Token: token,
		Accepted: true, NoiseThreshold: 3, Workload: &w,
		Throughput: &evidence.Record{Valid: true, Metrics: map[string]float64{"output_throughput": value}},
		Ranks:      []evidence.RankFacts{{Role: "ctx", Rank: 0, Mode: map[string]string{"T": map[string]string{"async": "1", "blocking": "0"}[arm]}}},
	}
}

func runsOf(values map[string][]float64) []Run {
	var runs []Run
	for _, arm := range []string{"blocking", "async"} {
		for i, v := range values[arm] {
			runs = append(runs, Run{Path: fmt.Sprintf("%s-%d", arm, i), Evidence: ev(arm, fmt.Sprintf("%s-%d", arm, i), v)})
		}
	}
	return runs
}

func codes(r *Result) string {
	var c []string
	for _, rs := range r.Reasons {
		c = append(c, string(rs.Code))
	}
	return strings.Join(c, ",")
}

// campaignRuns are the runs of an abba campaign of blocks (blocking
// first in even blocks), each with its signed campaign reference.
func campaignRuns(blocks [][2]float64, seq *rundir.Sequential, warmup, planned int) []Run {
	var ids []string
	for b := range planned {
		arms := []string{"blocking", "async"}
		if b%2 == 1 {
			arms[0], arms[1] = arms[1], arms[0]
		}
		for i, arm := range arms {
			ids = append(ids, rundir.RunID(2*b+i+1, arm))
		}
	}
	var runs []Run
	for b, v := range blocks {
		for i := range 2 {
			id := ids[2*b+i]
			arm := strings.SplitN(id, "-", 2)[1]
			value := v[0]
			if arm == "async" {
				value = v[1]
			}
			ref := &rundir.CampaignRef{PlanDigest: "plan", Order: "abba", Arms: 2, Index: 2*b + i + 1, Runs: ids, Warmup: warmup, Sequential: seq}
			runs = append(runs, Run{Path: id, Evidence: ev(arm, id, value), Campaign: ref})
		}
	}
	return runs
}

func TestOneRunPerArmIsDescriptive(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1500}}), Options{})
	d := r.Deltas[0]
	if r.Verdict != Descriptive || d.Interval != nil || d.P != nil || d.Display != "+50.00% (1 run per arm)" {
		t.Fatalf("one run per arm, +50%%: %s %q interval %v p %v", r.Verdict, d.Display, d.Interval, d.P)
	}
}

// Allocations differ by several percent, the change is +3%: within each
// pair the change shows; across the arms' pooled runs it drowns.
func TestPairsRemoveAllocationNoise(t *testing.T) {
	alloc := []float64{1000, 1060, 960, 1030, 990}
	var blocks [][2]float64
	for i, a := range alloc {
		blocks = append(blocks, [2]float64{a, a * (1.03 + 0.002*float64(i%2))})
	}
	paired := Compare(campaignRuns(blocks, nil, 0, len(blocks)), Options{Effect: 1})
	d := paired.Deltas[0]
	if !d.Paired || d.Method != "paired-t" || d.N != 5 || paired.Verdict != Improved {
		t.Fatalf("paired: %s by %s over %d (%s)", paired.Verdict, d.Method, d.N, d.Why)
	}
	var base, treat []float64
	for _, b := range blocks {
		base, treat = append(base, b[0]), append(treat, b[1])
	}
	unpaired := Compare(runsOf(map[string][]float64{"blocking": base, "async": treat}), Options{Effect: 1})
	if u := unpaired.Deltas[0]; u.Paired || u.Method != "welch-t" || unpaired.Verdict != Inconclusive {
		t.Fatalf("the same runs outside a campaign: %s by %s", unpaired.Verdict, u.Method)
	}
	if strings.Contains(NewReport(unpaired).Headline(), "p=") {
		t.Errorf("a p that did not decide is printed: %s", NewReport(unpaired).Headline())
	}
}

func TestWarmupBlocksAreLeftOut(t *testing.T) {
	blocks := [][2]float64{{500, 2000}, {1000, 1030}, {1001, 1031}, {999, 1030}}
	r := Compare(campaignRuns(blocks, nil, 1, len(blocks)), Options{Effect: 1})
	if r.Arms[0].N != 3 || r.Deltas[0].N != 3 || r.Verdict != Improved || *r.Deltas[0].Pct > 4 {
		t.Fatalf("warm-up counted: n %d pairs %d %s %+.2f%%", r.Arms[0].N, r.Deltas[0].N, r.Verdict, *r.Deltas[0].Pct)
	}
}

func TestSequentialStopOnlyWhenALookDecided(t *testing.T) {
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 10, Alpha: 0.05, LookAlpha: 0.0111}
	decided := [][2]float64{{1000, 1100}, {1001, 1101}, {999, 1099}}
	r := Compare(campaignRuns(decided, seq, 0, 10), Options{Effect: 1})
	if r.Verdict != Improved || len(r.Deltas[0].Looks) != 1 || r.Unfinished {
		t.Fatalf("decided at the first look: %s %v (%v)", r.Verdict, r.Deltas[0].Looks, r.Reasons)
	}
	noisy := [][2]float64{{1000, 1100}, {1001, 950}, {999, 1040}}
	r = Compare(campaignRuns(noisy, seq, 0, 10), Options{Effect: 1})
	if r.Verdict != Censored || !r.Unfinished || r.Reasons[0].Code != reason.RunMissing || !strings.Contains(r.Reasons[0].Detail, "no look decided") {
		t.Fatalf("stopped without a decision: %s %v", r.Verdict, r.Reasons)
	}
	// A gap before the last run given is missing whatever the looks say.
	gap := campaignRuns(decided, seq, 0, 10)
	r = Compare(append(gap[:2], gap[3:]...), Options{Effect: 1})
	if r.Verdict != Censored || r.Unfinished {
		t.Fatalf("a run missing inside the campaign: %s unfinished %v", r.Verdict, r.Unfinished)
	}
}

// Whether the runs after a look were needed is judged by the rule signed
// with the plan, whatever options compare is given afterwards.
func TestSequentialStopJudgedByTheSignedRule(t *testing.T) {
	decided := [][2]float64{{1000, 1100}, {1001, 1101}, {999, 1099}}
	rule := func(effect float64) *rundir.Sequential {
		return &rundir.Sequential{MinPairs: 3, MaxPairs: 10, Alpha: 0.05, LookAlpha: 0.0111, Rule: &rundir.StopRule{Effect: effect}}
	}
	// The campaign's looks needed 1%: it stopped at pair 3. A reader who
	// asks for 50% gets no improvement from it, but the campaign is whole.
	r := Compare(campaignRuns(decided, rule(1), 0, 10), Options{Effect: 50})
	if r.Verdict == Censored || r.Verdict == Improved || r.Stopped == nil || r.Stopped.Pairs != 3 || r.Stopped.Rule.Effect != 1 {
		t.Fatalf("stopped by its rule, read at 50%%: %s, stopped %+v (%v)", r.Verdict, r.Stopped, r.Reasons)
	}
	if !strings.Contains(NewReport(r).DesignLine(), "decided by the rule signed with its plan") {
		t.Errorf("design line %q", NewReport(r).DesignLine())
	}
	// Its rule asked for 12% of a +10% change whose interval reaches past
	// it: no look decided, so the runs after pair 3 were needed, however
	// decided a reader's 1% finds them.
	wide := [][2]float64{{1000, 1090}, {1000, 1100}, {1000, 1110}}
	if r = Compare(campaignRuns(wide, rule(12), 0, 10), Options{Effect: 1, judgingStop: true}); r.Verdict != Improved {
		t.Fatalf("the same runs judged by 1%% alone: %s", r.Verdict)
	}
	r = Compare(campaignRuns(wide, rule(12), 0, 10), Options{Effect: 1})
	if r.Verdict != Censored || !r.Unfinished || r.Reasons[0].Code != reason.RunMissing {
		t.Fatalf("stopped although its rule did not decide: %s %v", r.Verdict, r.Reasons)
	}
}

func TestUnequalArmsAreSaid(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099, 1100}}), Options{})
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "unequal arm sizes 3+4") {
		t.Fatalf("warnings %v", r.Warnings)
	}
	if r.Verdict != Improved || r.Deltas[0].Method != "welch-t" {
		t.Fatalf("+10%% with 3+4 runs: %s by %s", r.Verdict, r.Deltas[0].Method)
	}
}

func TestRegressionOfLowerIsBetterMetric(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {10, 10.1, 9.9, 10, 10.05}, "async": {12, 12.1, 11.9, 12, 12.05}})
	for _, r := range runs {
		r.Evidence.Throughput.Metrics["duration"] = r.Evidence.Throughput.Metrics["output_throughput"]
	}
	r := Compare(runs, Options{Metric: "duration"})
	if r.Verdict != Regressed {
		t.Fatalf("a longer duration is %s", r.Verdict)
	}
}

func TestCensorGate(t *testing.T) {
	base := func() []Run { return runsOf(map[string][]float64{"blocking": {1000, 1001}, "async": {1100, 1101}}) }
	cases := []struct {
		name string
		edit func([]Run) []Run
		want []reason.Code
	}{
		{"evidence not accepted", func(rs []Run) []Run {
			rs[3].Evidence.Accepted = false
			rs[3].Evidence.Reasons = []reason.Reason{reason.New(reason.FactCount, "ctx rank 3: 255/256 terminal commits")}
			return rs
		}, []reason.Code{reason.FactCount}},
		{"matched digests differ", func(rs []Run) []Run { rs[2].Evidence.MatchedDigest = "other"; return rs }, []reason.Code{reason.ConfigMismatch}},
		{"workload digests differ", func(rs []Run) []Run {
			w := workload
			w.Hex = strings.Repeat("cd", 32)
			rs[2].Evidence.Workload = &w
			return rs
		}, []reason.Code{reason.DigestArmMismatch}},
		{"algorithms differ", func(rs []Run) []Run {
			w := workload
			w.Algorithm = digest.TokensSorted
			rs[2].Evidence.Workload = &w
			return rs
		}, []reason.Code{reason.DigestAlgorithm}},
		{"unknown algorithm", func(rs []Run) []Run {
			w := workload
			w.Algorithm = "md5-v0"
			rs[2].Evidence.Workload = &w
			return rs
		}, []reason.Code{reason.DigestAlgorithm}},
		{"no workload digest", func(rs []Run) []Run {
			rs[2].Evidence.Workload = nil
			rs[2].Evidence.Criteria = []evidence.Criterion{{Kind: "digest"}}
			return rs
		}, []reason.Code{reason.DigestMissing}},
		{"mode of an arm", func(rs []Run) []Run { rs[2].Evidence.Ranks[0].Mode["T"] = "0"; return rs }, []reason.Code{reason.ArmModeMismatch}},
		{"same run twice", func(rs []Run) []Run { return append(rs, rs[0]) }, []reason.Code{reason.DuplicateRun}},
		{"one arm only", func(rs []Run) []Run { return rs[:2] }, []reason.Code{reason.ArmMissing}},
		{"several at once", func(rs []Run) []Run {
			rs[2].Evidence.MatchedDigest = "other"
			rs[3].Evidence.Ranks[0].Mode["T"] = "0"
			return rs
		}, []reason.Code{reason.ConfigMismatch, reason.ArmModeMismatch}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare(c.edit(base()), Options{})
			if r.Verdict != Censored || len(r.Deltas) != 0 {
				t.Fatalf("verdict %s, deltas %v", r.Verdict, r.Deltas)
			}
			got := codes(r)
			for _, w := range c.want {
				if !strings.Contains(got, string(w)) {
					t.Fatalf("reasons %s lack %s:\n%v", got, w, r.Reasons)
				}
			}
			if len(r.Arms) == 0 {
				t.Fatal("a censored comparison lost the raw numbers")
			}
		})
	}
}

func TestMissingArmNamesIt(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {1000}}), Options{})
	if r.Verdict != Censored || !strings.Contains(r.Reasons[0].Detail, "no run of arm async was given") {
		t.Fatalf("%s: %v", r.Verdict, r.Reasons)
	}
}

// A metric's direction: p99 of a latency improves downwards, and a
// scenario's declared direction wins over the name.
func TestMetricDirection(t *testing.T) {
	withMetric := func(metric string, declared *bool, base, treat float64) *Result {
		runs := runsOf(map[string][]float64{"blocking": {base, base, base, base, base}, "async": {treat, treat * 1.001, treat * 0.999, treat, treat * 1.002}})
		for i := range runs {
			e := runs[i].Evidence
			e.HeadlineMetric, e.HigherIsBetter = metric, declared
			v := e.Throughput.Metrics["output_throughput"]
			e.Throughput.Metrics = map[string]float64{metric: v}
		}
		return Compare(runs, Options{})
	}
	r := withMetric("p99_ttft_ms", nil, 100, 80)
	if r.HigherIsBetter || r.Verdict != Improved {
		t.Fatalf("p99 latency 20%% lower: higher is better %v, verdict %s", r.HigherIsBetter, r.Verdict)
	}
	// The JSON says the unit, as the table and plots do.
	var j map[string]any
	var buf bytes.Buffer
	if err := NewReport(r).Render(&buf, "json", ""); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil || j["unit"] != "ms" {
		t.Errorf("p99_ttft_ms's comparison in JSON: unit %v (%v), want ms", j["unit"], err)
	}
	no := false
	if r := withMetric("busbw_gbps", &no, 100, 120); r.HigherIsBetter || r.Verdict != Regressed {
		t.Fatalf("declared lower-is-better metric 20%% up: higher is better %v, verdict %s", r.HigherIsBetter, r.Verdict)
	}
}

// In a GitHub Actions job: the step summary gets the Markdown report, and
// the verdict becomes an annotation on stderr, escaped as GitHub reads it.
func TestGitHubAnnotationsAndSummary(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary}
	censored := Compare(runsOf(map[string][]float64{"blocking": {1000}}), Options{})
	var w strings.Builder
	if err := NewReport(censored).GitHub(func(k string) string { return env[k] }, &w); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.String(), "::error title=abbench s%3A censored::censored: ") || strings.Count(w.String(), "\n") != 1 {
		t.Errorf("annotation %q", w.String())
	}
	if data, _ := os.ReadFile(summary); !strings.Contains(string(data), "## abbench: ⛔ censored") {
		t.Errorf("step summary %q", data)
	}
	w.Reset()
	one := Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1050}}), Options{})
	NewReport(one).GitHub(func(k string) string { return map[string]string{"GITHUB_ACTIONS": "true"}[k] }, &w)
	if !strings.HasPrefix(w.String(), "::warning title=abbench s%3A descriptive::descriptive: async vs blocking +5.00%") {
		t.Errorf("annotation %q", w.String())
	}
	w.Reset()
	// A regression gate that cannot decide is an error, never a quiet pass.
	gated := Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {500}}), Options{FailOn: FailRegression})
	NewReport(gated).GitHub(func(k string) string { return map[string]string{"GITHUB_ACTIONS": "true"}[k] }, &w)
	if !strings.HasPrefix(w.String(), "::error title=abbench s%3A descriptive::") || !strings.Contains(w.String(), "--fail-on regression cannot gate this comparison") {
		t.Errorf("undecided gate's annotation %q", w.String())
	}
	if gated.FailsOn(FailRegression) != "" || gated.FailsOn("regression,undecided") != FailUndecided || !slices.ContainsFunc(gated.Warnings, func(s string) bool { return strings.Contains(s, "cannot gate") }) {
		t.Errorf("descriptive -50%%: fails on %q, warnings %q", gated.FailsOn("regression,undecided"), gated.Warnings)
	}
	w.Reset()
	NewReport(one).GitHub(func(string) string { return "" }, &w)
	if w.Len() != 0 {
		t.Errorf("outside GitHub Actions: %q", w.String())
	}
}

// The CSV names each column's unit in its header (the metric's in "unit",
// percentages as _pct, the CV among them) and prints every number exactly,
// without an exponent.
func TestCSV(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
	r := Compare(runs, Options{Effect: 1})
	var b strings.Builder
	if err := NewReport(r).CSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%v: %q", err, b.String())
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, name := range []string{"unit", "median", "mean", "cv_pct", "delta_pct", "interval_lo_pct", "interval_hi_pct", "p"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("header %v lacks %q", rows[0], name)
		}
	}
	byArm := map[string][]string{}
	for _, row := range rows[1:] {
		byArm[row[col["arm"]]] = row
	}
	a := byArm["async"]
	if a[col["verdict"]] != "improved" || a[col["method"]] != "welch-t" || !strings.HasPrefix(a[col["delta_pct"]], "10.0") || a[col["interval_lo_pct"]] == "" {
		t.Errorf("async row %v", a)
	}
	if a[col["unit"]] != "tokens/s" || a[col["median"]] != "1100" {
		t.Errorf("async unit and median %q %q", a[col["unit"]], a[col["median"]])
	}
	async := r.Arms[slices.IndexFunc(r.Arms, func(a Arm) bool { return a.Name == "async" })]
	if cv, _ := strconv.ParseFloat(a[col["cv_pct"]], 64); math.Abs(cv-100*async.CV) > 1e-9 || cv < 0.05 {
		t.Errorf("cv_pct %q is not the CV in percent (%v)", a[col["cv_pct"]], async.CV)
	}
	if strings.ContainsAny(a[col["p"]], "eE") || a[col["p"]] == "" {
		t.Errorf("p %q", a[col["p"]])
	}
	if b := byArm["blocking"]; b[col["verdict"]] != "baseline" || b[col["delta_pct"]] != "" {
		t.Errorf("baseline row %v", b)
	}
}

// Runs on different hardware classes are censored machine-mismatch, from
// the facts each run recorded; softer differences only warn.
func TestMachineMismatch(t *testing.T) {
	h200 := machine.Facts{Host: "a", CPUModel: "Xeon", Cores: 32, Kernel: "6.8", GPUs: []machine.GPU{{Name: "NVIDIA H200", Driver: "580.1"}, {Name: "NVIDIA H200", Driver: "580.1"}}}
	h100 := h200
	h100.GPUs = []machine.GPU{{Name: "NVIDIA H100", Driver: "580.1"}, {Name: "NVIDIA H100", Driver: "580.1"}}
	newDriver := h200
	newDriver.GPUs = []machine.GPU{{Name: "NVIDIA H200", Driver: "590.2"}, {Name: "NVIDIA H200", Driver: "590.2"}}
	with := func(facts ...machine.Facts) []Run {
		runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
		for i := range runs {
			runs[i].Machines = []machine.Facts{facts[i%len(facts)]}
		}
		return runs
	}
	r := Compare(with(h200, h100), Options{})
	if r.Verdict != Censored || strings.Trim(strings.ReplaceAll(codes(r), "machine-mismatch", ""), ",") != "" || !strings.Contains(r.Reasons[0].Detail, "NVIDIA H100") {
		t.Fatalf("H200 against H100: %s %v", r.Verdict, r.Reasons)
	}
	r = Compare(with(h200, newDriver), Options{})
	if r.Verdict == Censored || !strings.Contains(strings.Join(r.Warnings, "\n"), "softer facts") {
		t.Fatalf("another driver: %s %v", r.Verdict, r.Warnings)
	}
	// The warning names what differs, each variant with its runs, and
	// nothing the runs share.
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "NVIDIA H200 (driver 580.1) in 3 run(s)") || !strings.Contains(w, "NVIDIA H200 (driver 590.2) in 3 run(s)") || strings.Contains(w, "kernel 6.8") {
		t.Fatalf("another driver, the warning: %s", w)
	}
	r = Compare(with(h200), Options{})
	if r.Verdict == Censored || strings.Contains(strings.Join(r.Warnings, "\n"), "softer") {
		t.Fatalf("the same machine: %s %v", r.Verdict, r.Warnings)
	}
}

// TestStoredBaseline: each arm is compared with the stored baseline's same
// arm; a stored baseline on other hardware censors the comparison, and one
// that did not change is not called a change.
func TestStoredBaseline(t *testing.T) {
	h200 := machine.Facts{Host: "a", CPUModel: "Xeon", Cores: 32, GPUs: []machine.GPU{{Name: "NVIDIA H200"}}}
	h100 := h200
	h100.GPUs = []machine.GPU{{Name: "NVIDIA H100"}}
	on := func(runs []Run, f machine.Facts) []Run {
		for i := range runs {
			runs[i].Machines = []machine.Facts{f}
		}
		return runs
	}
	now := on(runsOf(map[string][]float64{"blocking": {1000, 1004, 996, 1001}, "async": {1100, 1103, 1098, 1101}}), h200)
	then := on(runsOf(map[string][]float64{"blocking": {1250, 1255, 1246, 1252}, "async": {1102, 1099, 1101, 1097}}), h200)
	r := Compare(now, Options{Stored: then, StoredPath: "main"})
	if r.Verdict != Improved || r.Stored == nil || len(r.Stored.Deltas) != 2 || r.Stored.Machine == "" {
		t.Fatalf("verdict %s, stored %+v", r.Verdict, r.Stored)
	}
	got := map[string]string{}
	for _, d := range r.Stored.Deltas {
		got[d.Arm] = d.Verdict
		if d.Method != decide.WelchT || d.Paired {
			t.Errorf("%s: method %s paired %v, want an unpaired Welch t", d.Arm, d.Method, d.Paired)
		}
	}
	if got["blocking"] != Regressed || got["async"] == Regressed || got["async"] == Improved || !r.StoredRegressed() {
		t.Errorf("verdicts against the stored baseline: %v", got)
	}
	r = Compare(now, Options{Stored: on(then, h100), StoredPath: "main"})
	if r.Verdict != Censored || codes(r) != "machine-mismatch" || !strings.Contains(r.Reasons[0].Detail, "stored baseline main") {
		t.Errorf("stored baseline on H100: %s %v", r.Verdict, r.Reasons)
	}
	// Its first run on the same hardware, its second on other: each run is
	// checked, not the first only.
	mixed := on(runsOf(map[string][]float64{"blocking": {1250, 1255, 1246, 1252}, "async": {1102, 1099, 1101, 1097}}), h200)
	mixed[1].Machines = []machine.Facts{h100}
	r = Compare(now, Options{Stored: mixed, StoredPath: "main"})
	if r.Verdict != Censored || codes(r) != "machine-mismatch" || !strings.Contains(r.Reasons[0].Detail, "its run "+mixed[1].Path+" ran on 1 host(s) [") ||
		!strings.Contains(r.Reasons[0].Detail, "NVIDIA H100") {
		t.Errorf("stored baseline whose second run ran on H100: %s %v", r.Verdict, r.Reasons)
	}
	other := runsOf(map[string][]float64{"blocking": {1000}})
	other[0].Evidence.MatchedDigest, other[0].Evidence.Token = "other", "other-token"
	refused := CheckStored(now, other)
	if !slices.ContainsFunc(refused, func(r *Refusal) bool { return r.Code == reason.ConfigMismatch && r.Run == other[0].Path }) {
		t.Errorf("a baseline of another scenario: %v", refused)
	}
	// The runs themselves, or another run of their campaign, as their own
	// baseline: refused, where a gate on them always passed.
	if refused := CheckStored(now, now); len(refused) != len(now) || refused[0].Code != reason.DuplicateRun {
		t.Errorf("these runs as their own baseline: %v", refused)
	}
	ofCampaign := runsOf(map[string][]float64{"blocking": {1000}})
	ofCampaign[0].Evidence.Token = "another-stage-token"
	ofCampaign[0].Campaign = &rundir.CampaignRef{PlanDigest: "plan-1"}
	inCampaign := slices.Clone(now)
	inCampaign[0].Campaign = &rundir.CampaignRef{PlanDigest: "plan-1"}
	if refused := CheckStored(inCampaign, ofCampaign); len(refused) != 1 || refused[0].Code != reason.DuplicateRun || !strings.Contains(refused[0].Error(), "of the campaign of these runs") {
		t.Errorf("a run of these runs' campaign as their baseline: %v", refused)
	}
	if refused := CheckStored(now, nil); len(refused) != 1 || !errors.Is(refused[0], ErrStoredEmpty) {
		t.Errorf("a baseline of no run: %v", refused)
	}
}

// BenchmarkCompare10000Runs compares 10,000 runs of an abba campaign (5,000
// pairs), the performance goal's size: at most 2 s and 256 MiB.
func BenchmarkCompare10000Runs(b *testing.B) {
	blocks := make([][2]float64, 5000)
	for i := range blocks {
		blocks[i] = [2]float64{1000 + float64(i%17), 1030 + float64(i%13)}
	}
	runs := campaignRuns(blocks, nil, 0, len(blocks))
	b.ReportAllocs()
	for b.Loop() {
		if r := Compare(runs, Options{Effect: 1}); r.Verdict != Improved {
			b.Fatalf("verdict %s (%v)", r.Verdict, r.Reasons)
		}
	}
}

// TestRunStillSaysRunning: an attempt whose status still says running (its
// controller and guard were killed together) is censored interrupted, and
// the reason says what that status means rather than "ended running".
func TestRunStillSaysRunning(t *testing.T) {
	dir := t.TempDir()
	if err := rundir.WriteStatus(dir, &rundir.Status{Arm: "async", State: rundir.StateRunning, Phase: "client"}); err != nil {
		t.Fatal(err)
	}
	runs, cleanup, err := LoadRuns([]string{dir}, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil || len(runs) != 1 || len(runs[0].Censor) != 1 {
		t.Fatalf("runs %+v, err %v", runs, err)
	}
	rs := runs[0].Censor[0]
	if rs.Code != reason.Interrupted || !strings.Contains(rs.Detail, "still says running (phase client)") || rs.Arm != "async" {
		t.Errorf("reason %+v", rs)
	}
}

// futileCampaign is the default design's campaign of six noisy pairs,
// which its look at pair 6 stops futile.
func futileCampaign(t *testing.T) *Result {
	t.Helper()
	s, err := decide.NewSequential(3, 14, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	seq := &rundir.Sequential{MinPairs: s.MinPairs, MaxPairs: s.MaxPairs, Alpha: s.Alpha, Boundary: s.Boundary,
		LookAlphas: s.LookAlphas, Futility: s.Futility, Rule: &rundir.StopRule{Effect: 1}}
	noisy := [][2]float64{{1000, 1060}, {1000, 1050}, {1000, 950}, {1000, 960}, {1000, 1040}, {1000, 955}}
	r := Compare(campaignRuns(noisy, seq, 0, 14), Options{Effect: 1})
	return r
}

// A campaign its futility stop ended is undecided: its report must not
// say a look decided it.
func TestFutilityStopIsNotCalledDecided(t *testing.T) {
	r := futileCampaign(t)
	if r.Stopped == nil || !r.Stopped.Futile || r.Verdict != Inconclusive {
		t.Fatalf("a futile look at pair 6: %s, stopped %+v (%v)", r.Verdict, r.Stopped, r.Reasons)
	}
	if line := NewReport(r).DesignLine(); strings.Contains(line, "decided by") || !strings.Contains(line, "stopped undecided at its look at pair 6") {
		t.Errorf("design line %q", line)
	}
}

// An inconclusive sequential stop's table shows the stagewise p the
// verdict line says beside its level: the table left it blank (this test
// failed so) and a newcomer read the line's p as another comparison's.
func TestInconclusiveStopShowsItsStagewiseP(t *testing.T) {
	r := futileCampaign(t)
	if r.Verdict != Inconclusive || len(r.Deltas) != 1 || r.Deltas[0].P == nil || !r.Deltas[0].Stagewise {
		t.Fatalf("%s, deltas %+v", r.Verdict, r.Deltas)
	}
	_, _, p, _ := NewReport(r).DeltaCells(r.Deltas[0].Arm)
	if want := numfmt.P(*r.Deltas[0].P); p != want {
		t.Errorf("the table's p %q, the verdict line's %q (%s)", p, want, NewReport(r).Headline())
	}
	// The detail line's test is the look's own, against the look's level:
	// said so beside the stagewise p of the table.
	if how := r.Deltas[0].How(); !strings.Contains(how, "; at its look, not significant at ") {
		t.Errorf("how %q: the look's own test unlabelled", how)
	}
	// And the table's p named beside it, with the level it is held to.
	if how, want := r.Deltas[0].How(), "the p and interval reported are the stagewise ones at this stop, held to "+numfmt.Significant(r.Deltas[0].Alpha, 3); !strings.HasSuffix(how, want) {
		t.Errorf("how %q: want it to end %q", how, want)
	}
}

// A stored baseline's arm of another count than now's says both counts:
// "over 3 run(s) per arm" (the smaller) read as the count of each.
func TestStoredBaselineSaysBothCounts(t *testing.T) {
	now := runsOf(map[string][]float64{"blocking": {1000, 1004, 996, 1001}, "async": {1100, 1103, 1098, 1101}})
	then := runsOf(map[string][]float64{"blocking": {1250, 1255, 1246}, "async": {1102, 1099, 1101, 1097}})
	r := Compare(now, Options{Stored: then, StoredPath: "main"})
	if r.Stored == nil || len(r.Stored.Deltas) != 2 {
		t.Fatalf("stored %+v", r.Stored)
	}
	for _, d := range r.Stored.Deltas {
		want := map[string]string{"blocking": "welch-t over 4 run(s) now and 3 then, unpaired", "async": "welch-t over 4 run(s) per arm, unpaired"}[d.Arm]
		if !strings.HasPrefix(d.How(), want) {
			t.Errorf("%s: %q, want it to start %q", d.Arm, d.How(), want)
		}
		// JSON says both too: n alone is the smaller.
		js, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON := map[string]string{"blocking": `"now_then":[4,3]`, "async": `"now_then":[4,4]`}[d.Arm]
		if !strings.Contains(string(js), wantJSON) {
			t.Errorf("%s: JSON %s, want %s", d.Arm, js, wantJSON)
		}
	}
}

// Two runs given of a campaign of twelve: the ten not given are one
// reason that names them by spans, not ten lines.
func TestRunsNotGivenAreOneReason(t *testing.T) {
	all := campaignRuns([][2]float64{{1000, 1010}, {1000, 1010}, {1000, 1010}, {1000, 1010}, {1000, 1010}, {1000, 1010}}, nil, 0, 6)
	r := Compare([]Run{all[0], all[2]}, Options{})
	var missing []reason.Reason
	for _, rs := range r.Reasons {
		if rs.Code == reason.RunMissing {
			missing = append(missing, rs)
		}
	}
	want := "10 runs of the signed campaign plan plan were not given (2-async, 4-blocking to 12-blocking): a campaign is compared whole"
	if r.Verdict != Censored || len(missing) != 1 || missing[0].Detail != want {
		t.Fatalf("%s, run-missing %v: want one reason %q", r.Verdict, missing, want)
	}
}

func TestRunSpans(t *testing.T) {
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"1-a", "2-b"}, "1-a, 2-b"},
		{[]string{"1-a", "3-a", "4-b", "5-a"}, "1-a, 3-a to 5-a"},
		{[]string{"2-b", "4-b", "7-a", "8-b"}, "2-b, 4-b, 7-a, 8-b"},
	} {
		if got := runSpans(c.ids); got != c.want {
			t.Errorf("runSpans(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}

// A run whose metric is 0 has no ratio: the delta decides nothing and
// says which runs of which arm hold it, not only that values must be
// positive.
func TestAValueOfZeroNamesItsRuns(t *testing.T) {
	blocks := [][2]float64{{1000, 1030}, {1010, 0}, {990, 1020}, {1005, 0}}
	r := Compare(campaignRuns(blocks, nil, 0, len(blocks)), Options{Effect: 1})
	d := r.Deltas[0]
	want := "2 of 4 async runs (3-async 0, 7-async 0) and 0 of 4 blocking runs have output_throughput at 0 or below"
	if d.Verdict != Inconclusive || !strings.Contains(d.Why, want) {
		t.Fatalf("verdict %s, why %q; want %q", d.Verdict, d.Why, want)
	}
	if len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, "\n"), "async vs blocking: "+want) {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// Where every rank of every arm logs one value of an arm key the arms set
// differently, the system never took the arm's value (a misspelt key):
// that cause comes first, before each rank's own mismatch; where the
// ranks follow their arms, nothing of it is said.
func TestAnArmKeyNoRankTookIsTheRootCause(t *testing.T) {
	unread := "every rank of every arm logs T=0, though the arms set 0 and 1: the system never took T"
	runs := runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {100, 102, 98}})
	for _, run := range runs {
		run.Evidence.Ranks[0].Mode["T"] = "0" // async's ranks too: the system read another name
	}
	r := Compare(runs, Options{Effect: 1})
	if r.Verdict != Censored || len(r.Reasons) < 2 || r.Reasons[0].Code != reason.ArmModeMismatch || !strings.Contains(r.Reasons[0].Detail, unread) {
		t.Fatalf("verdict %s, reasons %v", r.Verdict, r.Reasons)
	}
	if !strings.Contains(r.Reasons[1].Detail, "ctx rank 0 logs T=0, but arm async sets \"1\"") {
		t.Errorf("the rank's own mismatch: %v", r.Reasons[1])
	}
	r = Compare(runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {100, 102, 98}}), Options{Effect: 1})
	for _, rs := range r.Reasons {
		if strings.Contains(rs.Detail, "every rank of every arm") {
			t.Errorf("ranks that followed their arms: %v", rs)
		}
	}
	// A third arm whose ranks logged nothing (its runs failed before
	// their mode line) leaves "every arm" unproven: nothing of it is said.
	third := ev("async", "third-0", 100)
	third.Arm, third.ArmEnv = "third", map[string]string{"T": "2"}
	third.Ranks[0].Mode = nil
	r = Compare(append(runs, Run{Path: "third-0", Evidence: third}), Options{Effect: 1})
	for _, rs := range r.Reasons {
		if strings.Contains(rs.Detail, "every rank of every arm") {
			t.Errorf("an arm that logged nothing: %v", rs)
		}
	}
}
