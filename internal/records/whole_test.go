package records

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// appendedVLLM is a vLLM --append-result file of runs, a real result
// (vLLM 0.25.1) per line, each run's date, request rate, prompts,
// completed and failed requests edited in: what `vllm bench serve
// --append-result` leaves after a sweep that wrote to one file.
func appendedVLLM(t *testing.T, runs [][3]int) []byte {
	t.Helper()
	line := bytes.TrimSpace(corpusBytes(t, "vllm/sweep-seqs4-run0.json"))
	var out []byte
	for i, run := range runs {
		l := line
		for _, e := range [][2]string{
			{`"date": "20260818-021333"`, fmt.Sprintf(`"date": "20260818-%02d1333"`, i)},
			{`"request_rate": "inf"`, fmt.Sprintf(`"request_rate": %d.0`, i+1)},
			{`"num_prompts": 8,`, fmt.Sprintf(`"num_prompts": %d,`, run[0])},
			{`"completed": 8,`, fmt.Sprintf(`"completed": %d,`, run[1])},
			{`"failed": 0,`, fmt.Sprintf(`"failed": %d,`, run[2])},
		} {
			if !bytes.Contains(l, []byte(e[0])) {
				t.Fatalf("the vLLM result lacks %s", e[0])
			}
			l = bytes.Replace(l, []byte(e[0]), []byte(e[1]), 1)
		}
		out = append(append(out, l...), '\n')
	}
	return out
}

// A file of twelve appended runs, the last of which lost 985 of its 2,000
// requests, was read up to its first value and accepted at the first
// run's throughput. It is unreadable unless throughput.result names a run
// by its place; then only that run is read. Every serving format reads
// it so. Failed on the old code: vllm and trtllm read the first run
// (valid), vllm-append and sglang the last (never the one named).
func TestAppendedResultsAreNamed(t *testing.T) {
	runs := [][3]int{{120, 120, 0}}
	for range 10 {
		runs = append(runs, [3]int{500, 500, 0})
	}
	runs = append(runs, [3]int{2000, 1015, 985})
	data := appendedVLLM(t, runs)
	for _, format := range []string{"vllm", "vllm-append", "trtllm", "sglang"} {
		r := Parse(data, "out.jsonl", Spec{Format: format, Requested: 120, Metric: "output_throughput"})
		want := `holds 12 results, appended one per run (1: date 20260818-001333, request_rate 1.0, num_prompts 120, completed 120; 2: date 20260818-011333, request_rate 2.0, num_prompts 500`
		if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], want) || !strings.Contains(r.Problems[0], `throughput.result ("1" to "12")`) {
			t.Errorf("%s, no result named: valid %v unreadable %v, problems %q", format, r.Valid, r.Unreadable, r.Problems)
		}
		if r := Parse(data, "out.jsonl", Spec{Format: format, Requested: 120, Result: "1", Metric: "output_throughput"}); !r.Valid || r.Completed != 120 {
			t.Errorf("%s, the first run named: valid %v completed %d, problems %q", format, r.Valid, r.Completed, r.Problems)
		}
		r = Parse(data, "out.jsonl", Spec{Format: format, Requested: 2000, Result: "12", Metric: "output_throughput"})
		if r.Valid || r.Completed != 1015 || r.Failed != 985 {
			t.Errorf("%s, the last run named: valid %v completed %d failed %d, problems %q", format, r.Valid, r.Completed, r.Failed, r.Problems)
		}
		r = Parse(data, "out.jsonl", Spec{Format: format, Requested: 120, Result: "13", Metric: "output_throughput"})
		if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], `holds no result named "13"`) {
			t.Errorf("%s, a run the file lacks: valid %v, problems %q", format, r.Valid, r.Problems)
		}
	}
	// SGLang's own appended file (five runs, rates 1 to 16), unnamed.
	r := Parse(corpusBytes(t, "sglang/h200-llama-3.3-70b-online.jsonl"), "s.jsonl", Spec{Format: "sglang", Requested: 3200, Metric: "output_throughput"})
	if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], "holds 5 results, appended one per run (1: request_rate 1.0, completed 300; 2: request_rate 2.0") {
		t.Errorf("SGLang's five runs unnamed: valid %v, problems %q", r.Valid, r.Problems)
	}
}

// jsonFormats are the formats of one JSON value per file.
var jsonFormats = []string{"aiperf", "genai-perf", "guidellm", "inference-perf", "llmperf", "llmperf-responses", "k6", "trtllm-bench", "fio", "hyperfine", "pytest-benchmark"}

// A JSON record was read up to its first value: a second run appended, or
// any bytes after it, went unseen. Every real file of every JSON format,
// with another run or stray text after it, is unreadable, naming the byte
// where what follows begins and quoting it (under go test -short the
// files of at most largeSeed, still some of every format). Failed on the
// old code: each was read, and most were valid.
func TestJSONRecordIsReadWhole(t *testing.T) {
	read := 0
	for _, rel := range slices.Sorted(maps.Keys(corpus)) {
		c := corpus[rel]
		if !slices.Contains(jsonFormats, c.Format) {
			continue
		}
		data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if largeUnderShort(data) {
			continue
		}
		read++
		body := bytes.TrimRight(data, " \t\r\n")
		for name, tail := range map[string]string{"another run": string(bytes.TrimLeft(body, " \t\r\n")), "stray text": `{"x": 1} and more`, "a number": "7"} {
			doubled := append(append(slices.Clip(body), "\n\n"...), tail...)
			spec := Spec{Format: c.Format, Requested: c.Requests, Result: c.Result, Metric: c.Metric}
			if spec.Metric == "" {
				spec.Metric = "output_throughput"
			}
			r := Parse(doubled, rel, spec)
			want := fmt.Sprintf("data after its JSON value, at byte %d: %q", len(body)+2, tail[:min(len(tail), 40)])
			if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], want) {
				t.Errorf("%s (%s) and %s after it: valid %v unreadable %v, problems %q, want %q", rel, c.Format, name, r.Valid, r.Unreadable, r.Problems, want)
			}
		}
	}
	if read < len(jsonFormats) {
		t.Errorf("read %d files of the JSON formats", read)
	}
}

// A UTF-8 byte-order mark (PowerShell's redirection, Excel's CSV) made a
// record unreadable: every real file of every format (of at most
// largeSeed under go test -short), with one before it, reads as it reads
// without. Failed on the old code for the JSON
// formats and redis-benchmark's CSV.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	for _, rel := range slices.Sorted(maps.Keys(corpus)) {
		c := corpus[rel]
		data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if largeUnderShort(data) {
			continue
		}
		spec := Spec{Format: c.Format, Requested: c.Requests, Result: c.Result, Metric: c.Metric}
		if spec.Metric == "" {
			spec.Metric = "output_throughput"
		}
		plain, marked := Parse(data, rel, spec), Parse(append([]byte("\xef\xbb\xbf"), data...), rel, spec)
		if plain.Valid != marked.Valid || plain.Completed != marked.Completed || !maps.Equal(plain.Metrics, marked.Metrics) || !slices.Equal(plain.Problems, marked.Problems) {
			t.Errorf("%s (%s) after a byte-order mark: valid %v metrics %v problems %q; without: %v %v %q", rel, c.Format, marked.Valid, marked.Metrics, marked.Problems, plain.Valid, plain.Metrics, plain.Problems)
		}
	}
}

// Two console summaries appended to one log (two runs of vLLM's
// benchmark) were read line by line, the last value of each line
// winning: whichever run came last, mixed with any line only the other
// printed. The log is unreadable unless throughput.result names a
// summary by its place. Failed on the old code (the second run read,
// valid).
func TestConsoleSummariesAppendedAreNamed(t *testing.T) {
	first, second := corpusBytes(t, "console/vllm-qwen2-7b-10-prompts.txt"), corpusBytes(t, "console/vllm-qwen2-7b-100-prompts.txt")
	log := slices.Concat([]byte("INFO starting\n"), first, []byte("INFO the next run\n"), second)
	r := Parse(log, "bench.log", Spec{Format: "console", Requested: 100, Metric: "output_throughput"})
	if r.Valid || !r.Unreadable || r.Problems[0] != `holds 2 results ("1", "2"): name this run's with throughput.result` {
		t.Errorf("two summaries unnamed: valid %v unreadable %v, problems %q", r.Valid, r.Unreadable, r.Problems)
	}
	for result, want := range map[string][2]float64{"1": {10, 218.04}, "2": {100, 882.67}} {
		r := Parse(log, "bench.log", Spec{Format: "console", Requested: int(want[0]), Result: result, Metric: "output_throughput"})
		if !r.Valid || r.Completed != int(want[0]) || r.Metrics["output_throughput"] != want[1] {
			t.Errorf("summary %s: valid %v completed %d output %v, problems %q", result, r.Valid, r.Completed, r.Metrics["output_throughput"], r.Problems)
		}
	}
}

// The byte a problem names is the file's, Python's tokens before it
// (read as null, four bytes for three or nine) counted as written.
func TestTrailingDataOffsetAfterPythonTokens(t *testing.T) {
	data := []byte(`{"completed": 4, "output_throughput": NaN, "duration": -Infinity, "x": "NaN"} tail`)
	r := Parse(data, "r.json", Spec{Format: "vllm", Metric: "output_throughput"})
	want := fmt.Sprintf(`data after its JSON value, at byte %d: "tail"`, bytes.Index(data, []byte("tail")))
	if !r.Unreadable || !strings.Contains(r.Problems[0], want) {
		t.Errorf("problems %q, want %q", r.Problems, want)
	}
}

// A file of thousands of appended results is refused with a reason of
// bounded length: the first and last six described, the rest counted.
func TestAppendedResultsDescribedWithinBounds(t *testing.T) {
	// 300 results under go test -short, still far past the twelve
	// described: parsing 3,000 was a seventh of this package's quick-loop
	// CPU.
	n := 3000
	if testing.Short() {
		n = 300
	}
	runs := make([][3]int, n)
	for i := range runs {
		runs[i] = [3]int{8, 8, 0}
	}
	r := Parse(appendedVLLM(t, runs), "out.jsonl", Spec{Format: "vllm", Requested: 8, Metric: "output_throughput"})
	want := fmt.Sprintf("; 6: date 20260818-051333, request_rate 6.0; %d more; %d: date", n-12, n-5)
	if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], want) || len(r.Problems[0]) > 1000 {
		t.Errorf("%d results: valid %v unreadable %v, problem of %d bytes: %.1200q", n, r.Valid, r.Unreadable, len(r.Problems[0]), r.Problems[0])
	}
}
