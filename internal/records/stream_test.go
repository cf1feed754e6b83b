package records

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// largeVLLM is a vLLM --save-result file of n requests, as vLLM writes it
// with its per-request lists: prompt and output lengths, first-token
// times, inter-token latencies and generated texts (each text bytes).
func largeVLLM(n, text int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"date": "20260818-021333", "backend": "vllm", "num_prompts": %d, "request_rate": "inf", "duration": 100.5, "completed": %d, "failed": 0, `, n, n)
	b.WriteString(`"request_throughput": 19.9, "output_throughput": 2547.2, "total_token_throughput": 5094.4, "mean_ttft_ms": 120.5, "p99_ttft_ms": 410.2`)
	list := func(key string, item func(i int) string) {
		fmt.Fprintf(&b, `, %q: [`, key)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(item(i))
		}
		b.WriteString("]")
	}
	list("input_lens", func(i int) string { return fmt.Sprint(100 + i%900) })
	list("output_lens", func(i int) string { return fmt.Sprint(128) })
	list("ttfts", func(i int) string { return fmt.Sprintf("%.17g", 0.1+float64(i%1000)/7919) })
	list("itls", func(i int) string {
		return "[" + strings.Repeat(fmt.Sprintf("%.17g, ", 0.01+float64(i%97)/104729), 15) + "0.0123]"
	})
	list("generated_texts", func(i int) string { return fmt.Sprintf("%q", strings.Repeat("token ", text/6)) })
	list("errors", func(i int) string { return `""` })
	b.WriteString("}\n")
	return b.Bytes()
}

// A record was decoded into a generic tree of the whole file (a 184 MB
// result took 2 GiB): the heap a record takes to parse, above the file's
// own bytes, is now under half the file. Measured on a 19.5 MB vLLM
// result: the peak heap above the file, sampled while it is parsed, with
// the collector run at 10% growth so that garbage not yet collected does
// not hide what is live: 4.9 to 6.7 MB across runs (0.25x to 0.34x the
// file). Failed on the old code: 69 MB (3.5x). A result with Python's
// NaN in it (a statistic of no request) is read through, not copied
// converted first: failed before that, at 52 MB (2.65x).
func TestRecordParsedInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("parses two 20,000-request records with the heap sampled at a 10% GC target: seconds of CPU; go test without -short runs it")
	}
	data := largeVLLM(20000, 600)
	withNaN := bytes.Replace(data, []byte(`"p99_ttft_ms": 410.2`), []byte(`"p99_ttft_ms": 410.2, "std_itl_ms": NaN`), 1)
	for name, data := range map[string][]byte{"plain": data, "with NaN": withNaN} {
		r, above := parsePeak(data)
		if !r.Valid || r.Completed != 20000 || r.Metrics["output_throughput"] != 2547.2 {
			t.Fatalf("the large result (%s): valid %v completed %d, problems %q", name, r.Valid, r.Completed, r.Problems)
		}
		ratio := above / float64(len(data))
		t.Logf("a %.1f MB record (%s): peak heap %.1f MB above it (%.2fx the file)", float64(len(data))/1e6, name, above/1e6, ratio)
		if ratio > 0.5 {
			t.Errorf("parsing a %.1f MB record (%s) took %.1f MB of heap above it, %.2fx the file: more than half of it", float64(len(data))/1e6, name, above/1e6, ratio)
		}
	}
}

// parsePeak parses data as a vLLM result of 20,000 requests and samples
// the heap meanwhile: the record, and the peak heap above what it was
// before, in bytes.
func parsePeak(data []byte) (*Record, float64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r := Parse(data, "big.json", Spec{Format: "vllm", Requested: 20000, Metric: "output_throughput"})
	close(done)
	<-sampled
	runtime.KeepAlive(data)
	return r, float64(peak.Load()) - float64(before.HeapAlloc)
}

// A key given twice is refused wherever it is, in what a format drops
// (a vLLM result's per-request lists, GuideLLM's requests) and in the
// second result of an appended file as in the first: the single pass
// that keeps what is read checks every object's keys.
func TestDuplicateKeyInWhatIsDropped(t *testing.T) {
	vllm := bytes.TrimSpace(corpusBytes(t, "vllm/sweep-seqs4-run0.json"))
	dropped := bytes.Replace(vllm, []byte(`"date":`), []byte(`"itls": [[0.1], {"x": 1, "x": 2}], "date":`), 1)
	second := append(append(slices.Clone(vllm), '\n'), bytes.Replace(vllm, []byte(`"date":`), []byte(`"failed": 3, "date":`), 1)...)
	guide := corpusBytes(t, "guidellm/qwen3-4b-sanity-4-requests.json")
	at := bytes.Index(guide, []byte(`"requests": {`))
	if at < 0 {
		t.Fatal("the GuideLLM file has no requests")
	}
	at += len(`"requests": {`)
	guideDup := slices.Concat(guide[:at], []byte(`"y": 1, "y": 2, `), guide[at:])
	for _, c := range []struct {
		name, format string
		data         []byte
		key          string
	}{
		{"a per-request list", "vllm", dropped, "x"},
		{"the second result", "vllm-append", second, "failed"},
		{"GuideLLM's requests", "guidellm", guideDup, "y"},
	} {
		r := Parse(c.data, "r.json", Spec{Format: c.format, Result: "1", Metric: "output_throughput"})
		want := fmt.Sprintf("key %q appears twice", c.key)
		if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], want) {
			t.Errorf("%s: valid %v unreadable %v, problems %q, want %q", c.name, r.Valid, r.Unreadable, r.Problems, want)
		}
	}
}

// A record nested deeper than any tool writes is unreadable, not read
// with a stack as deep: the streamed decode bounds it as encoding/json
// does.
func TestDeepNestingIsUnreadable(t *testing.T) {
	for _, format := range []string{"vllm", "guidellm", "llmperf-responses"} {
		deep := `{"a": ` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "}"
		r := Parse([]byte(deep), "deep.json", Spec{Format: format, Metric: "output_throughput"})
		if r.Valid || !r.Unreadable || !strings.Contains(r.Problems[0], "nested deeper than 10000 levels") {
			t.Errorf("%s nested 200,000 deep: valid %v unreadable %v, problems %.200q", format, r.Valid, r.Unreadable, r.Problems)
		}
	}
}
