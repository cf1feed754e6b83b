package compare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/reason"
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

// TestStatisticalValidation checks the verdict rule on synthetic runs
// with 1% coefficient of variation, 5 runs per arm: in 1,000 A/A
// comparisons at most 5% say improved or regressed, and with a true +3%
// effect at least 80% say improved.
func TestStatisticalValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	sample := func(mean float64) []float64 {
		v := make([]float64, 5)
		for i := range v {
			v[i] = mean * (1 + 0.01*rng.NormFloat64())
		}
		return v
	}
	const trials = 1000
	falsePositives, detected := 0, 0
	for range trials {
		r := Compare(runsOf(map[string][]float64{"blocking": sample(1000), "async": sample(1000)}), Options{})
		if r.Verdict == Improved || r.Verdict == Regressed {
			falsePositives++
		}
		r = Compare(runsOf(map[string][]float64{"blocking": sample(1000), "async": sample(1030)}), Options{})
		if r.Verdict == Improved {
			detected++
		}
	}
	fp, power := float64(falsePositives)/trials, float64(detected)/trials
	t.Logf("A/A false positive rate %.3f (goal <= 0.05); power at +3%% %.3f (goal >= 0.8)", fp, power)
	if fp > Alpha {
		t.Errorf("false positive rate %.3f above alpha %.2f", fp, Alpha)
	}
	if power < 0.8 {
		t.Errorf("power %.3f below 0.8", power)
	}
}

func TestSingleRunUsesThreshold(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1020}}), Options{})
	if r.Verdict != Inconclusive || r.Deltas[0].Display != "~" || r.Deltas[0].Interval != nil {
		t.Fatalf("+2%% under a 3%% threshold: %s %s", r.Verdict, r.Deltas[0].Display)
	}
	r = Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1050}}), Options{})
	if r.Verdict != Improved || r.Deltas[0].Display != "+5.00%" || r.Deltas[0].Method != "threshold" {
		t.Fatalf("+5%%: %s %s %s", r.Verdict, r.Deltas[0].Display, r.Deltas[0].Method)
	}
	r = Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1050}}), Options{Threshold: 10})
	if r.Verdict != Inconclusive {
		t.Fatalf("+5%% under --threshold 10: %s", r.Verdict)
	}
	cal, _ := Calibrate("blocking", "output_throughput", []float64{1000, 1001, 999, 1000.5, 999.5})
	r = Compare(runsOf(map[string][]float64{"blocking": {1000}, "async": {1020}}), Options{Calibration: cal})
	if r.Verdict != Improved || !strings.Contains(r.Deltas[0].ThresholdOf, "calibrated") {
		t.Fatalf("+2%% against a calibrated MDE of %.2f%%: %s", r.Deltas[0].Threshold, r.Verdict)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "no interval with one run per arm") {
		t.Fatalf("warnings %v", r.Warnings)
	}
}

func TestTooFewRunsWarns(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}}), Options{})
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "need >= 4 samples") {
		t.Fatalf("no U test warning for n=3: %v", r.Warnings)
	}
	if r.Verdict != Improved || r.Deltas[0].Method != "threshold" {
		t.Fatalf("+10%% with n=3: %s by %s", r.Verdict, r.Deltas[0].Method)
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
			if r.Verdict != Censored || r.DeltaPct != nil || len(r.Deltas) != 0 {
				t.Fatalf("verdict %s, delta %v", r.Verdict, r.DeltaPct)
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
	if r := withMetric("p99_ttft_ms", nil, 100, 80); r.HigherIsBetter || r.Verdict != Improved {
		t.Fatalf("p99 latency 20%% lower: higher is better %v, verdict %s", r.HigherIsBetter, r.Verdict)
	}
	no := false
	if r := withMetric("busbw_gbps", &no, 100, 120); r.HigherIsBetter || r.Verdict != Regressed {
		t.Fatalf("declared lower-is-better metric 20%% up: higher is better %v, verdict %s", r.HigherIsBetter, r.Verdict)
	}
}
