package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
)

// TestCompareExports renders every export format of an accepted and a
// censored comparison of committed evidence, holds each to its golden
// file, and has each read as its consumer reads it: Bencher's schema,
// github-action-benchmark's parser, an OpenMetrics parser, GitHub's
// step-output file. The accepted one carries the report's own delta.
func TestCompareExports(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	for _, set := range []struct {
		name string
		exit int
	}{{"accepted", cli.ExitOK}, {"censored", cli.ExitCensored}} {
		dirs, _ := filepath.Glob(filepath.Join("testdata", "compare", set.name, "*"))
		report := compareReport(t, dirs, set.exit)
		for format, check := range map[string]func(*testing.T, []byte, reportDelta){
			"bmf": checkBMF, "github-benchmark": checkGitHubBenchmark, "openmetrics": checkOpenMetrics, "github-output": checkGitHubOutput,
		} {
			t.Run(set.name+"-"+format, func(t *testing.T) {
				got := renderCompare(t, format, dirs, set.exit)
				checkGolden(t, filepath.Join("testdata", "compare", set.name+"."+format+".golden"), got)
				check(t, got, report)
			})
		}
	}
}

// reportDelta is the JSON report's one treatment's delta; Arm is ""
// when the comparison is censored (no delta reported).
type reportDelta struct {
	Scenario, Metric, Baseline, Arm, Verdict string
	Pct, Lo, Hi                              float64
}

func compareReport(t *testing.T, dirs []string, exit int) reportDelta {
	t.Helper()
	var r struct {
		Scenario, Metric, Baseline, Verdict string
		Deltas                              []struct {
			Arm      string
			Pct      *float64 `json:"delta_pct"`
			Interval *[2]float64
			Verdict  string
		}
	}
	if err := json.Unmarshal(renderCompare(t, "json", dirs, exit), &r); err != nil {
		t.Fatal(err)
	}
	d := reportDelta{Scenario: r.Scenario, Metric: r.Metric, Baseline: r.Baseline, Verdict: r.Verdict}
	if r.Verdict != "censored" && len(r.Deltas) == 1 && r.Deltas[0].Pct != nil && r.Deltas[0].Interval != nil {
		x := r.Deltas[0]
		d.Arm, d.Verdict, d.Pct, d.Lo, d.Hi = x.Arm, x.Verdict, *x.Pct, x.Interval[0], x.Interval[1]
	}
	return d
}

func (d reportDelta) name() string {
	return d.Scenario + "/" + d.Metric + ": " + d.Arm + " vs " + d.Baseline
}

// checkBMF validates against Bencher's published schema, then finds the
// delta under its benchmark and measure.
func checkBMF(t *testing.T, got []byte, want reportDelta) {
	c := jsonschema.NewCompiler()
	f, err := os.Open(filepath.Join("testdata", "consumers", "bencher-bmf.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("https://bencher.dev/bmf.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("https://bencher.dev/bmf.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not Bencher Metric Format: %v", err)
	}
	var bmf map[string]map[string]struct{ Value, LowerValue, UpperValue *float64 }
	if err := json.Unmarshal(bytes.ReplaceAll(bytes.ReplaceAll(got, []byte(`"lower_value"`), []byte(`"LowerValue"`)), []byte(`"upper_value"`), []byte(`"UpperValue"`)), &bmf); err != nil {
		t.Fatal(err)
	}
	if want.Arm == "" {
		if len(bmf) != 0 {
			t.Fatalf("a censored comparison exported %v", bmf)
		}
		return
	}
	m := bmf[want.name()][want.Metric+"_delta_pct"]
	if m.Value == nil || m.LowerValue == nil || m.UpperValue == nil || *m.Value != want.Pct || *m.LowerValue != want.Lo || *m.UpperValue != want.Hi {
		t.Fatalf("BMF %s: %+v, want the report's %+.4f [%+.4f, %+.4f]", want.name(), m, want.Pct, want.Lo, want.Hi)
	}
}

// gabRange is github-action-benchmark's reading of a range (its
// extractRangeInfo): a prefix "+-" or "±", then a Number.
var gabRange = regexp.MustCompile(`(\+-|±)\s*(\d.+)`)

// checkGitHubBenchmark reads the file as github-action-benchmark's custom
// tools do (extractCustomBenchmarkResult: JSON.parse, then name, value,
// unit, range and extra of each element of an array; no element is "no
// benchmark result was found", an error) and checks each field's type.
func checkGitHubBenchmark(t *testing.T, got []byte, want reportDelta) {
	var entries []map[string]any
	if err := json.Unmarshal(got, &entries); err != nil {
		t.Fatalf("not an array of entries: %v", err)
	}
	// What the action keeps is what was written: no field dropped or
	// coerced into another value.
	if kept := parseWithGitHubActionBenchmark(t, got); !reflect.DeepEqual(kept, entries) && len(kept)+len(entries) > 0 {
		t.Fatalf("github-action-benchmark keeps %v of %v", kept, entries)
	}
	if want.Arm == "" {
		if len(entries) != 0 {
			t.Fatalf("a censored comparison exported %v", entries)
		}
		return
	}
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	e := entries[0]
	name, _ := e["name"].(string)
	unit, _ := e["unit"].(string)
	value, ok := e["value"].(float64)
	if name != want.name() || unit != "%" || !ok || value != want.Pct {
		t.Fatalf("entry %v, want name %q unit %% value %v", e, want.name(), want.Pct)
	}
	rng, _ := e["range"].(string)
	m := gabRange.FindStringSubmatch(rng)
	if m == nil {
		t.Fatalf("range %q is not one the action reads", rng)
	}
	half, err := strconv.ParseFloat(m[2], 64)
	if err != nil || math.Abs(half-(want.Hi-want.Lo)/2) > 0.005 {
		t.Fatalf("range %q, want the interval's half width %.2f", rng, (want.Hi-want.Lo)/2)
	}
	if extra, _ := e["extra"].(string); !strings.Contains(extra, "verdict: "+want.Verdict) {
		t.Fatalf("extra %q does not say the verdict", extra)
	}
	for k := range e {
		if k != "name" && k != "unit" && k != "value" && k != "range" && k != "extra" {
			t.Errorf("field %q: the action reads no such field", k)
		}
	}
}

// checkGitHubOutput reads the lines as the runner reads $GITHUB_OUTPUT:
// NAME=VALUE, NAME without "=" (no NAME<<DELIMITER form is written).
func checkGitHubOutput(t *testing.T, got []byte, want reportDelta) {
	outputs := map[string]string{}
	outputName := regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	sc := bufio.NewScanner(bytes.NewReader(got))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if !ok || !outputName.MatchString(name) || strings.Contains(name, "<<") {
			t.Fatalf("line %q is no NAME=VALUE output", sc.Text())
		}
		if _, dup := outputs[name]; dup {
			t.Fatalf("output %s written twice (the runner keeps the last)", name)
		}
		outputs[name] = value
	}
	if want.Arm == "" {
		if outputs["verdict"] != "censored" || outputs["censored"] != "true" || outputs["reason"] == "" {
			t.Fatalf("censored outputs %v", outputs)
		}
		return
	}
	if outputs["verdict"] != want.Verdict || outputs["censored"] != "false" || outputs["delta_pct"] != strconv.FormatFloat(want.Pct, 'f', -1, 64) ||
		outputs["delta_pct_"+want.Arm] != outputs["delta_pct"] || outputs["interval_low_pct"] != strconv.FormatFloat(want.Lo, 'f', -1, 64) {
		t.Fatalf("outputs %v, want the report's delta %v", outputs, want)
	}
}

// checkOpenMetrics parses the exposition (parseOpenMetrics) and finds
// the delta's samples.
func checkOpenMetrics(t *testing.T, got []byte, want reportDelta) {
	samples, err := parseOpenMetrics(got)
	if err != nil {
		t.Fatalf("not OpenMetrics: %v\n%s", err, got)
	}
	checkOpenMetricsWithPrometheus(t, got)
	scope := fmt.Sprintf(`scenario=%q,metric=%q`, want.Scenario, want.Metric)
	if want.Arm == "" {
		if samples["abbench_censored{"+scope+"}"] != 1 || len(samples) != 1 {
			t.Fatalf("censored: samples %v", samples)
		}
		return
	}
	arm := fmt.Sprintf(`%s,arm=%q,baseline=%q`, scope, want.Arm, want.Baseline)
	for name, v := range map[string]float64{"abbench_censored{" + scope + "}": 0, "abbench_delta_percent{" + arm + "}": want.Pct,
		"abbench_delta_low_percent{" + arm + "}": want.Lo, "abbench_delta_high_percent{" + arm + "}": want.Hi,
		"abbench_verdict_info{" + arm + fmt.Sprintf(",verdict=%q}", want.Verdict): 1} {
		if got, ok := samples[name]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
		}
	}
}
