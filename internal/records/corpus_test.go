package records

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// corpusCase is what one real file must read as.
type corpusCase struct {
	Format   string
	Requests int    // the workload the record is checked against (0: the record's own counts)
	Result   string // Spec.Result, for a file of several results
	Metric   string // the headline the spec asks for (output_throughput when empty)
	Metrics  map[string]float64
	// Unit is the record's unit of work (requests when empty).
	Unit              string
	Completed, Failed int
	Valid             bool
	Problem           string // the first problem named (the root cause), when invalid
	// Verdict is the tool's own verdict the record must carry (nil: none).
	Verdict *bool
}

func serving(format string, requests int, metrics map[string]float64, completed, failed int, valid bool, problem string) corpusCase {
	return corpusCase{Format: format, Requests: requests, Metrics: metrics, Completed: completed, Failed: failed, Valid: valid, Problem: problem}
}

// servingNamed is serving for a file of several results, read for the
// one result names.
func servingNamed(format string, requests int, result string, metrics map[string]float64, completed, failed int, valid bool, problem string) corpusCase {
	c := serving(format, requests, metrics, completed, failed, valid, problem)
	c.Result = result
	return c
}

// corpus is every file of testdata/records with what it must read as:
// servingCorpus here, and each format's table added by its own test file
// (addCorpus in an init function).
var corpus = map[string]corpusCase{}

func addCorpus(cases map[string]corpusCase) {
	for rel, c := range cases {
		if _, dup := corpus[rel]; dup {
			panic("corpus row twice: " + rel)
		}
		corpus[rel] = c
	}
}

func init() { addCorpus(servingCorpus) }

// TestCorpus parses every file of testdata/records, files the real tools
// wrote (testdata/records/SOURCES.md says where each comes from), and
// holds what abbench extracts against what the file says: the metrics,
// the counts, the unit, the tool's verdict and the validity. A file
// without its row fails, so the corpus cannot grow untested.
func TestCorpus(t *testing.T) {
	cases := corpus

	files, _ := filepath.Glob(filepath.Join("../..", "testdata", "records", "*", "*"))
	var seen []string
	for _, path := range files {
		rel, _ := filepath.Rel(filepath.Join("../..", "testdata", "records"), path)
		rel = filepath.ToSlash(rel)
		seen = append(seen, rel)
		w, ok := cases[rel]
		if !ok {
			t.Errorf("%s has no row in TestCorpus", rel)
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		checkCorpusFile(t, rel, data, w)
	}
	for rel := range cases {
		if !slices.Contains(seen, rel) {
			t.Errorf("TestCorpus names %s, which testdata/records lacks", rel)
		}
	}
	if len(seen) < len(cases) {
		t.Errorf("read %d corpus files", len(seen))
	}
}

// checkCorpusFile reads one real file as its row says and holds the
// record to the row: metrics compared to the file's own numbers, counts,
// unit, verdict, validity and root cause.
func checkCorpusFile(t *testing.T, rel string, data []byte, w corpusCase) {
	t.Helper()
	metric := w.Metric
	if metric == "" {
		metric = "output_throughput"
	}
	spec := Spec{Format: w.Format, Requested: w.Requests, Result: w.Result, Metric: metric}
	r := Parse(data, rel, spec)
	for name, v := range w.Metrics {
		if got, ok := r.Metrics[name]; !ok || math.Abs(got-v) > 1e-9*math.Abs(v) {
			t.Errorf("%s: %s = %v (present %v), want %v", rel, name, got, ok, v)
		}
	}
	if r.Completed != w.Completed || r.Failed != w.Failed || r.Valid != w.Valid {
		t.Errorf("%s: completed %d failed %d valid %v, want %d %d %v (problems %v)", rel, r.Completed, r.Failed, r.Valid, w.Completed, w.Failed, w.Valid, r.Problems)
	}
	if unit := cmp.Or(w.Unit, UnitRequests); r.WorkUnit() != unit {
		t.Errorf("%s: unit %s, want %s", rel, r.WorkUnit(), unit)
	}
	switch {
	case w.Verdict == nil && r.Verdict != nil:
		t.Errorf("%s: verdict %+v, want none", rel, *r.Verdict)
	case w.Verdict != nil && (r.Verdict == nil || r.Verdict.Valid != *w.Verdict):
		t.Errorf("%s: verdict %+v, want valid %v", rel, r.Verdict, *w.Verdict)
	}
	if w.Problem != "" && (len(r.Problems) == 0 || r.Problems[0] != w.Problem) {
		t.Errorf("%s: problems %v do not start with %q", rel, r.Problems, w.Problem)
	}
	// A record of requests is held to the workload it served: against one
	// request more it is invalid, naming the counts.
	if w.Valid && w.Requests > 0 {
		spec.Requested = w.Requests + 1
		if other := Parse(data, rel, spec); other.Valid {
			t.Errorf("%s: valid against %d requests", rel, spec.Requested)
		}
	}
}

// TestCorpusSGLangFailuresFromWorkload shows that the SGLang records above
// are invalid only because the workload sent more requests than they
// completed: against the 996 they completed they are valid.
func TestCorpusSGLangFailuresFromWorkload(t *testing.T) {
	for rel, format := range map[string]string{"sglang/lora-sglang-rate2.jsonl": "sglang", "console/sglang-lora-rate2.txt": "console"} {
		data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", rel))
		if err != nil {
			t.Fatal(err)
		}
		if r := Parse(data, rel, Spec{Format: format, Requested: 996, Metric: "output_throughput"}); !r.Valid {
			t.Errorf("%s against 996 requests: invalid %v", rel, r.Problems)
		}
	}
}

var servingCorpus = map[string]corpusCase{
	// vLLM 0.25.1, vllm bench serve --save-result (facebook/opt-125m, 8 prompts).
	"vllm/sweep-seqs4-run0.json": serving("vllm", 8, map[string]float64{"output_throughput": 93.74767963046673, "request_throughput": 5.859229976904171,
		"total_token_throughput": 281.2430388914002, "duration": 1.3653671270003542}, 8, 0, true, ""),
	"vllm/sweep-seqs8-run1.json": serving("vllm", 8, map[string]float64{"output_throughput": 186.48326383470211, "request_throughput": 11.655203989668882,
		"total_token_throughput": 559.4497915041063, "duration": 0.6863886729988735}, 8, 0, true, ""),
	// Every request failed: vLLM still writes a record, with zero throughput.
	"vllm/all-requests-failed.json": serving("vllm", 8, map[string]float64{"output_throughput": 0, "request_throughput": 0,
		"total_token_throughput": 0, "duration": 0.00503263997961767}, 0, 8, false, "8 of 8 requests failed"),
	// vLLM benchmark_serving.py console summaries (Qwen2-7B-Instruct, random 1024/1024).
	"console/vllm-qwen2-7b-10-prompts.txt": serving("console", 10, map[string]float64{"output_throughput": 218.04, "request_throughput": 0.21,
		"total_token_throughput": 436.07, "duration": 46.96}, 10, 0, true, ""),
	"console/vllm-qwen2-7b-50-prompts.txt": serving("console", 50, map[string]float64{"output_throughput": 588.46, "request_throughput": 0.58,
		"total_token_throughput": 1175.28, "duration": 86.87}, 50, 0, true, ""),
	"console/vllm-qwen2-7b-100-prompts.txt": serving("console", 100, map[string]float64{"output_throughput": 882.67, "request_throughput": 0.88,
		"total_token_throughput": 1778.56, "duration": 114.01}, 100, 0, true, ""),
	// python3 -m sglang.bench_serving --output-file, appended a line per run:
	// the run named by its place (the fifth of five, 3,200 requests; the
	// sixth of six, 2,400; the one line, 10,000; Infinity is Python's
	// request rate "inf"). TestAppendedResultsAreNamed reads them unnamed.
	"sglang/h200-llama-3.3-70b-online.jsonl": servingNamed("sglang", 3200, "5", map[string]float64{"output_throughput": 4238.110256944623, "duration": 387.5871320969891}, 3200, 0, true, ""),
	"sglang/h200-llama-405b-online.jsonl":    servingNamed("sglang", 2400, "6", map[string]float64{"output_throughput": 1224.3946098961699, "duration": 377.2264237909112}, 2400, 0, true, ""),
	"sglang/h200-deepseek-dp-mla.jsonl":      serving("sglang", 10000, map[string]float64{"output_throughput": 12412.394674113431, "duration": 412.49091206211597}, 10000, 0, true, ""),
	// An SGLang fork's LoRA serving benchmark (on sglang.bench_serving): 1,000 requests
	// sent, 996 completed, and neither file says so; only the workload does.
	"sglang/lora-sglang-rate2.jsonl": serving("sglang", 1000, map[string]float64{"output_throughput": 831.8340148261185, "request_throughput": 3.796014234442946,
		"total_token_throughput": 2137.037864953961, "input_throughput": 1305.2038501278428, "duration": 262.38047027401626}, 996, 4, false, "4 of 1000 requests failed"),
	"sglang/lora-sglang-rate64.jsonl": serving("sglang", 1000, map[string]float64{"output_throughput": 833.3369125962498, "request_throughput": 3.802872599485308,
		"total_token_throughput": 2140.898911009642, "duration": 261.9072750780033}, 996, 4, false, "4 of 1000 requests failed"),
	"sglang/lora-dlora-rate8.jsonl": serving("sglang", 1000, map[string]float64{"output_throughput": 832.6809398707514, "request_throughput": 3.7998791154980984,
		"total_token_throughput": 2139.213672695529, "duration": 262.11360144003993}, 996, 4, false, "4 of 1000 requests failed"),
	"console/sglang-lora-rate2.txt": serving("console", 1000, map[string]float64{"output_throughput": 831.83, "request_throughput": 3.80,
		"total_token_throughput": 2137.04, "duration": 262.38}, 996, 4, false, "4 of 1000 requests failed"),
	// trtllm-bench 0.16.0 throughput benchmark console reports (Llama 3.1 70B, TP 8).
	"trtllm-bench/result_128_128_30000.txt": serving("console", 30000, map[string]float64{"output_throughput": 14389.7989, "request_throughput": 112.4203,
		"duration": 266.8557100}, 30000, 0, true, ""),
	"trtllm-bench/result_1024_1024_3000.txt": serving("console", 3000, map[string]float64{"output_throughput": 10893.8728, "request_throughput": 10.6385,
		"duration": 281.9933779}, 3000, 0, true, ""),
	"trtllm-bench/result_2048_128_3000.txt": serving("console", 3000, map[string]float64{"output_throughput": 1899.9652, "request_throughput": 14.8435,
		"duration": 202.1089671}, 3000, 0, true, ""),
	// AIPerf 0.10.0, profile_export_aiperf.json schema 1.3 (96 requests at concurrency 8).
	"aiperf/qwen36-chatbot-c8.json": serving("aiperf", 96, map[string]float64{"output_throughput": 769.5574669258838, "request_throughput": 3.371709042256622,
		"total_token_throughput": 2345.761200242474, "duration": 28.472207654}, 96, 0, true, ""),
	// AIPerf 0.8.0, schema 1.0: every one of 20 requests timed out.
	// It writes no request_count and no throughput: the failures are the root cause.
	"aiperf/qwen35-all-timed-out.json": serving("aiperf", 20, map[string]float64{}, -1, 20, false, "20 of 20 requests failed"),
	// The same version with half of its 20 requests timed out: metrics from the 10 that completed.
	"aiperf/llama32-3b-half-timed-out.json": serving("aiperf", 20, map[string]float64{"output_throughput": 0.57520480976081, "request_throughput": 0.05229134634189182,
		"total_token_throughput": 1.0719726000087824, "duration": 191.236231223}, 10, 10, false, "10 of 20 requests failed"),
}
