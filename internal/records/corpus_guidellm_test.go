package records

import (
	"bytes"
	"encoding/json"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// GuideLLM 0.5.0.dev0, --max-requests 4 at concurrency 4.
		"guidellm/qwen3-4b-sanity-4-requests.json": {Format: "guidellm", Requests: 4,
			Metrics: map[string]float64{"output_throughput": 165.59511945248636, "request_throughput": 0.12043527909470322,
				"total_token_throughput": 181.60480385267783, "duration": 24.909644603729248, "mean_ttft_ms": 171.7655062675476},
			Completed: 4, Failed: 0, Valid: true},
		// Synchronous, max_seconds 900 and max_requests 30: the 30 requests
		// all succeeded as the 900 s ran out (both limits ended it).
		"guidellm/gpt-oss-20b-30-requests.json": {Format: "guidellm", Requests: 30,
			Metrics: map[string]float64{"output_throughput": 33.417378943280085, "request_throughput": 0.03333333333333333,
				"total_token_throughput": 36.44321817728489, "duration": 720, "mean_request_latency_s": 30.64414818763733, "mean_itl_ms": 29.90631087667665},
			Completed: 30, Failed: 0, Valid: true},
		// The same limits: max_seconds ended it after 28 requests, 5 of
		// them cancelled; 2 of the 30 were never sent.
		"guidellm/qwen3-30b-5-cancelled.json": {Format: "guidellm", Requests: 30,
			Metrics:   map[string]float64{"output_throughput": 25.859765493102046, "request_throughput": 0.024999999999999994},
			Completed: 23, Failed: 5,
			Problem: "5 requests cancelled, 2 of its max_requests (30) never sent: GuideLLM ended the benchmark at max_seconds"},
	})
}

// guidellmSweep joins the benchmarks of real files into one file, as a
// sweep writes them (built in this test: no real sweep file is in the
// corpus).
func guidellmSweep(t *testing.T, files ...string) []byte {
	t.Helper()
	var sweep map[string]any
	var all []any
	for _, f := range files {
		var one map[string]any
		if err := json.Unmarshal(realRecord(t, "guidellm/"+f), &one); err != nil {
			t.Fatal(err)
		}
		all = append(all, one["benchmarks"].([]any)...)
		if sweep == nil {
			sweep = one
		}
	}
	sweep["benchmarks"] = all
	data, err := json.Marshal(sweep)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A sweep's benchmark is named as GuideLLM names its strategy; without a
// name, or with one no benchmark has, or with two benchmarks of one name,
// the file is unreadable, never read as its first benchmark.
func TestGuideLLMSweepNamesItsBenchmark(t *testing.T) {
	sweep := guidellmSweep(t, "qwen3-4b-sanity-4-requests.json", "gpt-oss-20b-30-requests.json")
	for _, c := range []struct {
		data     []byte
		result   string
		requests int
		output   float64
		problem  string
	}{
		{sweep, "concurrent@4", 4, 165.59511945248636, ""},
		{sweep, "synchronous", 30, 33.417378943280085, ""},
		{sweep, "", 0, 0, `holds 2 results ("concurrent@4", "synchronous"): name this run's with throughput.result`},
		{sweep, "poisson@1.00", 0, 0, `holds no result named "poisson@1.00" (it holds "concurrent@4", "synchronous")`},
		{guidellmSweep(t, "gpt-oss-20b-30-requests.json", "qwen3-30b-5-cancelled.json"), "synchronous", 0, 0,
			`holds more than one benchmark named "synchronous": abbench cannot tell which is this run's`},
	} {
		r := Parse(c.data, "benchmarks.json", Spec{Format: "guidellm", Requested: c.requests, Result: c.result, Metric: "output_throughput"})
		switch {
		case c.problem == "" && (!r.Valid || r.Metrics["output_throughput"] != c.output):
			t.Errorf("result %q: valid %v, output %v (want %v), problems %q", c.result, r.Valid, r.Metrics["output_throughput"], c.output, r.Problems)
		case c.problem != "" && (!r.Unreadable || r.Problems[0] != c.problem):
			t.Errorf("result %q: unreadable %v, problems %q, want %q", c.result, r.Unreadable, r.Problems, c.problem)
		}
	}
}

// GuideLLM's strategies are named as its SchedulingStrategy.__str__ does.
func TestGuideLLMStrategyNames(t *testing.T) {
	for strategy, want := range map[string]string{
		`{"type_": "synchronous"}`:                         "synchronous",
		`{"type_": "concurrent", "streams": 16}`:           "concurrent@16",
		`{"type_": "throughput", "max_concurrency": null}`: "throughput@unlimited",
		`{"type_": "throughput", "max_concurrency": 64}`:   "throughput@64",
		`{"type_": "constant", "rate": 2.345}`:             "constant@2.35",
		`{"type_": "poisson", "rate": 10}`:                 "poisson@10.00",
		`{"type_": "trace", "time_scale": 1}`:              "trace@1.00",
		`{}`:                                               "(no strategy)",
	} {
		var s any
		if err := json.Unmarshal([]byte(strategy), &s); err != nil {
			t.Fatal(err)
		}
		if got := guidellmStrategyName(map[string]any{"config": map[string]any{"strategy": s}}); got != want {
			t.Errorf("%s: %q, want %q", strategy, got, want)
		}
	}
}

// Errored requests fail the benchmark (the real file with 1 of its 4
// requests edited, in this test, from successful to errored: no real
// file with an errored request is in the corpus).
func TestGuideLLMErroredRequests(t *testing.T) {
	data := realRecord(t, "guidellm/qwen3-4b-sanity-4-requests.json")
	for old, edit := range map[string]string{`"successful_requests": 4`: `"successful_requests": 3`, `"errored_requests": 0`: `"errored_requests": 1`} {
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("the real file lacks %s", old)
		}
		data = bytes.Replace(data, []byte(old), []byte(edit), 1)
	}
	r := Parse(data, "benchmarks.json", Spec{Format: "guidellm", Requested: 4, Metric: "output_throughput"})
	if r.Valid || r.Completed != 3 || r.Failed != 1 || r.Problems[0] != "1 request errored: GuideLLM ended the benchmark at max_requests" {
		t.Fatalf("valid %v, %d completed %d failed, problems %q", r.Valid, r.Completed, r.Failed, r.Problems)
	}
}
