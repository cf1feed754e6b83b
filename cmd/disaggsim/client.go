package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/readonly"
)

type clientOptions struct {
	coord, prompts, out string
	requests, rounds    int
	concurrency         int
	timeout             time.Duration
	recordStyle         string // vllm or trtllm
}

func readPrompts(path string) ([][]uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer readonly.Close(f)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var out [][]uint32
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var toks []uint32
		if err := json.Unmarshal(b, &toks); err != nil {
			var obj struct {
				IDs []uint32 `json:"prompt_token_ids"`
			}
			if err2 := json.Unmarshal(b, &obj); err2 != nil || obj.IDs == nil {
				return nil, fmt.Errorf("%s:%d: want an array of token IDs or an object with prompt_token_ids", path, line)
			}
			toks = obj.IDs
		}
		out = append(out, toks)
	}
	return out, sc.Err()
}

type result struct {
	ok     bool
	output int
	input  int
	e2el   time.Duration
	ttft   time.Duration
	err    string
}

// runClient is the benchmark client: it sends requests×rounds prompts with
// the given concurrency and writes a vLLM benchmark-serving result.
func runClient(o clientOptions, cfg config, log *logger) error {
	prompts, err := readPrompts(o.prompts)
	if err != nil {
		return err
	}
	if len(prompts) == 0 {
		return fmt.Errorf("%s holds no prompts", o.prompts)
	}
	if o.requests <= 0 {
		o.requests = len(prompts)
	}
	n, err := newNode(o.coord, "client-0", cfg)
	if err != nil {
		return err
	}
	front, err := n.dial("frontend-0")
	if err != nil {
		return err
	}
	total := o.requests * o.rounds
	rng := rand.New(rand.NewPCG(cfg.seed, 7))
	type pending struct {
		start time.Time
		input int
	}
	var mu sync.Mutex
	starts := map[int]pending{}
	results := make([]result, 0, total)
	doneCh := make(chan struct{}, total)
	go func() {
		for in := range n.inbox {
			if in.m.Type != "done" {
				continue
			}
			mu.Lock()
			p := starts[in.m.ID]
			e2el := time.Since(p.start)
			results = append(results, result{ok: in.m.OK, output: in.m.Output, input: p.input, e2el: e2el,
				ttft: e2el - time.Duration(in.m.SentAt), err: in.m.Err})
			mu.Unlock()
			doneCh <- struct{}{}
		}
	}()
	begin := time.Now()
	deadline := time.After(o.timeout)
	inflight := 0
	sent := 0
	for sent < total || inflight > 0 {
		for sent < total && inflight < o.concurrency {
			i := sent % o.requests
			prompt := prompts[i%len(prompts)]
			output := 16 + rng.IntN(48)
			mu.Lock()
			starts[sent] = pending{time.Now(), len(prompt)}
			mu.Unlock()
			// The client is local to the frontend: no fabric delay.
			front.queue <- queued{time.Now(), msg{Type: "request", ID: sent, Prompt: prompt, Output: output, Total: total}}
			sent++
			inflight++
		}
		select {
		case <-doneCh:
			inflight--
		case <-deadline:
			return fmt.Errorf("client timed out after %s with %d of %d requests done", o.timeout, len(results), total)
		}
	}
	duration := time.Since(begin)
	rec := record(results, total, o.concurrency, duration, !cfg.faults.noValidity)
	written := maps.Clone(rec)
	if o.recordStyle == "trtllm" {
		// TensorRT-LLM's copy of benchmark_serving writes no failed count
		// and no validity flag: failures are num_prompts - completed.
		delete(written, "failed")
		delete(written, "valid")
	}
	data, _ := json.MarshalIndent(written, "", "  ")
	if err := atomicfile.WriteFile(o.out, append(data, '\n'), 0o644); err != nil {
		return err
	}
	printSummary(rec)
	log.printf("client_done completed=%v failed=%v", rec["completed"], rec["failed"])
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// stats adds the mean, median, standard deviation and 99th percentile of
// v (milliseconds) under the benchmark client's key names.
func stats(prefix string, v []float64, rec map[string]any) {
	if len(v) == 0 {
		v = []float64{0}
	}
	mean, median, std, p99 := describe(v)
	rec["mean_"+prefix+"_ms"] = mean
	rec["median_"+prefix+"_ms"] = median
	rec["std_"+prefix+"_ms"] = std
	rec["p99_"+prefix+"_ms"] = p99
}

// record is a vLLM benchmark_serving result, plus "failed" and the
// validity flag "valid" (left out under the no-validity fault).
func record(rs []result, total, concurrency int, d time.Duration, withValidity bool) map[string]any {
	var completed, in, out int
	var ttft, tpot, e2el []float64
	var inLens, outLens []int
	var errs []string
	for _, r := range rs {
		inLens = append(inLens, r.input)
		if !r.ok {
			errs = append(errs, r.err)
			outLens = append(outLens, 0)
			continue
		}
		completed++
		in += r.input
		out += r.output
		outLens = append(outLens, r.output)
		ttft = append(ttft, ms(r.ttft))
		e2el = append(e2el, ms(r.e2el))
		if r.output > 1 {
			tpot = append(tpot, ms(r.e2el-r.ttft)/float64(r.output-1))
		}
	}
	failed := total - completed
	secs := d.Seconds()
	rec := map[string]any{
		"date": time.Now().UTC().Format("20060102-150405"), "backend": "disaggsim", "model_id": "disaggsim",
		"num_prompts": total, "max_concurrency": concurrency, "request_rate": "inf",
		"duration": secs, "completed": completed, "failed": failed,
		"total_input_tokens": in, "total_output_tokens": out,
		"request_throughput": float64(completed) / secs, "output_throughput": float64(out) / secs,
		"total_token_throughput": float64(in+out) / secs,
		"input_lens":             inLens, "output_lens": outLens, "errors": errs,
	}
	stats("ttft", ttft, rec)
	stats("tpot", tpot, rec)
	stats("itl", tpot, rec)
	stats("e2el", e2el, rec)
	if withValidity {
		rec["valid"] = failed == 0
	}
	return rec
}

func printSummary(rec map[string]any) {
	fmt.Printf("============ Serving Benchmark Result ============\n")
	fmt.Printf("%-40s %-10v\n", "Successful requests:", rec["completed"])
	fmt.Printf("%-40s %-10v\n", "Failed requests:", rec["failed"])
	fmt.Printf("%-40s %-10.2f\n", "Benchmark duration (s):", rec["duration"])
	fmt.Printf("%-40s %-10v\n", "Total input tokens:", rec["total_input_tokens"])
	fmt.Printf("%-40s %-10v\n", "Total generated tokens:", rec["total_output_tokens"])
	fmt.Printf("%-40s %-10.2f\n", "Request throughput (req/s):", rec["request_throughput"])
	fmt.Printf("%-40s %-10.2f\n", "Output token throughput (tok/s):", rec["output_throughput"])
	fmt.Printf("%-40s %-10.2f\n", "Total Token throughput (tok/s):", rec["total_token_throughput"])
	fmt.Printf("%-40s %-10.2f\n", "Mean TTFT (ms):", rec["mean_ttft_ms"])
	fmt.Printf("%-40s %-10.2f\n", "Mean E2EL (ms):", rec["mean_e2el_ms"])
	fmt.Printf("==================================================\n")
}
