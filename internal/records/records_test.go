package records

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordFormats(t *testing.T) {
	cases := []struct {
		file, format string
		requested    int
		pattern      string
		valid        bool
		completed    int
		failed       int
		output       float64
		problem      string
	}{
		{"vllm.json", "vllm", 256, "", true, 256, 0, 797.86, ""},
		{"vllm-failed.json", "vllm", 256, "", false, 254, 2, 791.2, "2 of 256 requests failed"},
		// vLLM writes no validity flag: its counts say whether the run is whole.
		{"vllm-novalidity.json", "vllm", 256, "", true, 256, 0, 797.86, ""},
		{"vllm.json", "vllm", 300, "", false, 256, 0, 797.86, "256 of 300 requested requests completed"},
		// Two results appended: which is this run's, the file does not say.
		{"vllm-append.jsonl", "vllm-append", 256, "", false, -1, -1, 0, `holds 2 results, appended one per run`},
		{"trtllm.json", "trtllm", 256, "", false, 255, 1, 854.4, "1 of 256 requests failed"},
		{"sglang.jsonl", "sglang", 256, "", true, 256, 0, 817.2, ""},
		{"aiperf.json", "aiperf", 200, "", true, 200, 0, 1274.63, ""},
		{"aiperf-cancelled.json", "aiperf", 200, "", false, 119, 81, 1274.63, "was_cancelled"},
		{"console.txt", "console", 256, "", true, 256, 0, 797.86, ""},
		{"console-failed.txt", "console", 256, "", false, 250, 6, 779, "!FAILED REQUESTS!"},
		{"regex.log", "regex", 256, `completed=(?P<completed>\d+) failed=(?P<failed>\d+) out_tok_s=(?P<output_throughput>[0-9.]+)`, true, 256, 0, 1024.25, ""},
		{"vllm.json", "console", 256, "", false, -1, -1, 0, "no benchmark summary lines"},
		{"console.txt", "vllm", 256, "", false, -1, -1, 0, "does not parse"},
	}
	for _, c := range cases {
		t.Run(c.format+"/"+c.file, func(t *testing.T) {
			r, err := ParseFile(filepath.Join("testdata", "records", c.file), Spec{Format: c.format, Requested: c.requested, Pattern: c.pattern, Metric: "output_throughput"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Valid != c.valid || r.Completed != c.completed || r.Failed != c.failed || r.Metrics["output_throughput"] != c.output {
				t.Fatalf("valid %v completed %d failed %d output %v, problems %v", r.Valid, r.Completed, r.Failed, r.Metrics["output_throughput"], r.Problems)
			}
			if c.problem != "" && !strings.Contains(strings.Join(r.Problems, "; "), c.problem) {
				t.Fatalf("problems %v lack %q", r.Problems, c.problem)
			}
			if c.valid && len(r.Problems) != 0 {
				t.Fatalf("valid record with problems %v", r.Problems)
			}
		})
	}
}

func TestRecordMissingFileIsAnError(t *testing.T) {
	if _, err := ParseFile(filepath.Join(t.TempDir(), "none.json"), Spec{Format: "vllm", Requested: 1, Metric: "output_throughput"}); err == nil {
		t.Fatal("no error for a missing record")
	}
	if _, err := ParseFile("testdata/records/vllm.json", Spec{Format: "csv", Requested: 1, Metric: "output_throughput"}); err == nil {
		t.Fatal("unknown format accepted")
	}
}

func TestPythonJSONKeepsStrings(t *testing.T) {
	got := string(pythonJSON([]byte(`{"a": Infinity, "b": "NaN and Infinity", "c": [-Infinity, NaN], "d": "x\"Infinity"}`)))
	want := `{"a": null, "b": "NaN and Infinity", "c": [null, null], "d": "x\"Infinity"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// Implausible records are invalid, each with a problem naming the field.
func TestImplausibleRecords(t *testing.T) {
	const ok = `"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "duration": 2.5`
	cases := []struct{ name, record, flag, want string }{
		{"negative throughput", `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": -5}`, "", "output_throughput -5 is not plausible"},
		{"zero throughput", `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 0}`, "", "output_throughput 0 is not plausible"},
		{"1e308 throughput", `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 1e308}`, "", "output_throughput 1e+308 is not plausible"},
		{"negative duration", `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 100.5, "duration": -1}`, "", "duration -1 is not plausible"},
		{"completed above the requests", `{"num_prompts": 4, "completed": 5, "failed": 0, "output_throughput": 100.5}`, "", "completed 5 is more than the 4 requests"},
		{"failed -1", `{"num_prompts": 4, "completed": 4, "failed": -1, "output_throughput": 100.5}`, "", "failed -1 is negative"},
		{"fractional completed", `{"num_prompts": 4, "completed": 3.5, "failed": 0, "output_throughput": 100.5}`, "", "completed 3.5 is not a whole number"},
		{"the record's own count disagrees", `{"num_prompts": 8, "completed": 8, "failed": 0, "output_throughput": 100.5}`, "", "the record's own request count (8) is not the workload's requests (4)"},
		{"duplicated key", `{` + ok + `, "output_throughput": 999}`, "", `key "output_throughput" appears twice`},
		{"duplicated nested key", `{` + ok + `, "x": {"a": 1, "a": 2}}`, "", `key "a" appears twice`},
		{"flag false (TensorRT-LLM perf database)", `{` + ok + `, "b_is_valid": false}`, "", "validity flag is false"},
		{"flag the scenario requires is missing", `{` + ok + `}`, "is_valid", `lacks its validity flag "is_valid"`},
		{"errors listed", `{"num_prompts": 4, "completed": 4, "output_throughput": 100.5, "errors": ["", "timeout", "", ""]}`, "", "1 of 4 requests failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Parse([]byte(c.record), "r.json", Spec{Format: "vllm", Requested: 4, Metric: "output_throughput", Flag: c.flag})
			if r.Valid || !strings.Contains(strings.Join(r.Problems, "; "), c.want) {
				t.Fatalf("valid %v, problems %q, want %q", r.Valid, r.Problems, c.want)
			}
		})
	}
	if r := Parse([]byte(`{`+ok+`, "is_valid": true, "x": {"a": 1, "b": [{"a": 1}]}}`), "r.json", Spec{Format: "vllm", Requested: 4, Metric: "output_throughput", Flag: "is_valid"}); !r.Valid {
		t.Fatalf("a plausible record with its flag is invalid: %v", r.Problems)
	}
}

// AIPerf: older exports nest the metric blocks under "records"; newer ones
// say why a run is no valid submission.
func TestAIPerfSchemas(t *testing.T) {
	nested := `{"records": {"output_token_throughput": {"unit": "tokens/sec", "avg": 512.5}, "request_count": {"unit": "requests", "avg": 4}}}`
	if r := Parse([]byte(nested), "p.json", Spec{Format: "aiperf", Requested: 4, Metric: "output_throughput"}); !r.Valid || r.Metrics["output_throughput"] != 512.5 {
		t.Fatalf("nested schema: %+v", r)
	}
	invalid := `{"output_token_throughput": {"avg": 512.5}, "request_count": {"avg": 4}, "runtime_submission_invalid_reasons": ["warmup overlapped the measurement"]}`
	if r := Parse([]byte(invalid), "p.json", Spec{Format: "aiperf", Requested: 4, Metric: "output_throughput"}); r.Valid || !strings.Contains(strings.Join(r.Problems, ";"), "warmup overlapped") {
		t.Fatalf("invalid submission accepted: %+v", r)
	}
}
