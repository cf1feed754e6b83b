package loadgen

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Outcome is one scheduled request: what was sent, when, what came back.
type Outcome struct {
	Index  int  // order of sending, from 0
	Prompt int  // the prompt's position in the prompts file, from 0
	Line   int  // the prompt's line in the file
	Sent   bool // false: the run ended before its turn (Kind not-sent)
	Send   time.Duration
	// TTFT is the time to the first content (without streaming, the whole
	// response); ITLs the gaps between later content events; E2E the
	// time to the response's end. All from Send.
	TTFT, E2E                  time.Duration
	ITLs                       []time.Duration
	PromptTokens, OutputTokens int
	TokensFrom                 string // FromUsage or FromCounted
	Status                     int    // the HTTP status, 0 when none came
	Kind, Error                string // the failure; "" when it succeeded
}

// OK says whether the request succeeded.
func (o *Outcome) OK() bool { return o.Sent && o.Kind == "" }

// MarshalJSON writes an outcome as a line of the per-request records:
// times in milliseconds, the send time in seconds from the run's start.
func (o Outcome) MarshalJSON() ([]byte, error) {
	return o.appendJSON(nil), nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Summary is a run's counts and throughputs.
type Summary struct {
	Requested, Completed, Failed int
	// Failures counts the failed requests by kind.
	Failures                           map[string]int
	InputTokens, OutputTokens          int
	Duration                           time.Duration
	RequestRate, OutputRate, TokenRate float64 // per second
	TTFT, TPOT, ITL, E2E               dist
}

// Summarize counts r's outcomes and measures its latencies, of the
// requests that succeeded, as vLLM's benchmark does: TPOT is a request's
// time after its first token per further output token.
func (r *Result) Summarize() Summary {
	s := Summary{Requested: len(r.Outcomes), Failures: map[string]int{}, Duration: r.Duration}
	// Made at their sizes, counted first: a million requests' latencies
	// are 8 MB each, which growing by appends would double.
	var nOK, nTPOT, nITL int
	for i := range r.Outcomes {
		if o := &r.Outcomes[i]; o.OK() {
			nOK, nITL = nOK+1, nITL+len(o.ITLs)
			if o.OutputTokens > 1 {
				nTPOT++
			}
		}
	}
	ttft, tpot, itl, e2e := make([]float64, 0, nOK), make([]float64, 0, nTPOT), make([]float64, 0, nITL), make([]float64, 0, nOK)
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		if !o.OK() {
			s.Failures[o.Kind]++
			continue
		}
		s.Completed++
		s.InputTokens += o.PromptTokens
		s.OutputTokens += o.OutputTokens
		ttft = append(ttft, ms(o.TTFT))
		e2e = append(e2e, ms(o.E2E))
		if o.OutputTokens > 1 {
			tpot = append(tpot, ms(o.E2E-o.TTFT)/float64(o.OutputTokens-1))
		}
		for _, d := range o.ITLs {
			itl = append(itl, ms(d))
		}
	}
	s.Failed = s.Requested - s.Completed
	if secs := r.Duration.Seconds(); secs > 0 {
		s.RequestRate = float64(s.Completed) / secs
		s.OutputRate = float64(s.OutputTokens) / secs
		s.TokenRate = float64(s.InputTokens+s.OutputTokens) / secs
	}
	s.TTFT, s.TPOT, s.ITL, s.E2E = distOf(ttft), distOf(tpot), distOf(itl), distOf(e2e)
	return s
}

// Record is the result in the shape of vLLM's benchmark_serving result
// (format vllm reads it), with failed, the validity flag valid (true when
// every request succeeded), the failures by kind and the sent prompts'
// digests besides.
func (r *Result) Record(now time.Time) map[string]any {
	rec := r.recordSummary(now)
	n := len(r.Outcomes)
	inLens, outLens, ttfts, errs := make([]int, n), make([]int, n), make([]float64, n), make([]string, n)
	itls := make([][]float64, n)
	for i := range r.Outcomes {
		out := &r.Outcomes[i]
		inLens[i], ttfts[i], errs[i], itls[i] = out.PromptTokens, out.TTFT.Seconds(), out.Error, []float64{}
		if out.OK() {
			outLens[i] = out.OutputTokens
			for _, d := range out.ITLs {
				itls[i] = append(itls[i], d.Seconds())
			}
		}
	}
	rec["input_lens"], rec["output_lens"], rec["ttfts"], rec["itls"], rec["errors"] = inLens, outLens, ttfts, itls, errs
	return rec
}

// recordSummary is Record less its per-request arrays (perRequestArrays).
func (r *Result) recordSummary(now time.Time) map[string]any {
	s := r.Summarize()
	o := r.Options
	n := len(r.Outcomes)
	var rate any = "inf"
	if o.Rate > 0 {
		rate = o.Rate
	}
	backend := "openai"
	if o.Endpoint == Chat {
		backend = "openai-chat"
	}
	rec := map[string]any{
		"date": now.UTC().Format("20060102-150405"), "backend": backend, "model_id": o.Model, "endpoint": "/v1" + o.Endpoint.Path(),
		"num_prompts": n, "request_rate": rate, "burstiness": o.Burstiness, "max_concurrency": o.Concurrency, "seed": o.Seed,
		"max_tokens": o.MaxTokens, "ignore_eos": o.IgnoreEOS, "stream": o.Stream,
		"duration": s.Duration.Seconds(), "completed": s.Completed, "failed": s.Failed, "failure_kinds": s.Failures,
		"total_input_tokens": s.InputTokens, "total_output_tokens": s.OutputTokens,
		"request_throughput": s.RequestRate, "output_throughput": s.OutputRate, "total_token_throughput": s.TokenRate,
		"valid": s.Failed == 0,
	}
	if r.Sent != nil {
		rec["prompt_digest"] = r.Sent.String()
	}
	if r.SentMultiset != nil {
		rec["prompt_multiset_digest"] = r.SentMultiset.String()
	}
	r.workloadRecord(rec)
	for name, d := range map[string]dist{"ttft": s.TTFT, "tpot": s.TPOT, "itl": s.ITL, "e2el": s.E2E} {
		rec["mean_"+name+"_ms"], rec["median_"+name+"_ms"], rec["std_"+name+"_ms"] = d.Mean, d.Median, d.Std
		for i, q := range Percentiles {
			rec[fmt.Sprintf("p%g_%s_ms", q, name)] = d.P[i]
		}
	}
	return rec
}

// PrintSummary prints the console summary vLLM's benchmark prints, and
// the failures by kind and the sent digest.
func (r *Result) PrintSummary(w io.Writer) error {
	s := r.Summarize()
	var b strings.Builder
	line := func(name string, v any) { fmt.Fprintf(&b, "%-40s %v\n", name, v) }
	num := func(name string, v float64) { fmt.Fprintf(&b, "%-40s %.2f\n", name, v) }
	b.WriteString("============ Serving Benchmark Result ============\n")
	line("Successful requests:", s.Completed)
	line("Failed requests:", s.Failed)
	for _, kind := range slices.Sorted(maps.Keys(s.Failures)) {
		line("  "+kind+":", s.Failures[kind])
	}
	line("Maximum request concurrency:", r.Options.Concurrency)
	num("Benchmark duration (s):", s.Duration.Seconds())
	line("Total input tokens:", s.InputTokens)
	line("Total generated tokens:", s.OutputTokens)
	num("Request throughput (req/s):", s.RequestRate)
	num("Output token throughput (tok/s):", s.OutputRate)
	num("Total Token throughput (tok/s):", s.TokenRate)
	for _, m := range []struct {
		title, name string
		d           dist
	}{{"Time to First Token", "TTFT", s.TTFT}, {"Time per Output Token (excl. 1st token)", "TPOT", s.TPOT},
		{"Inter-token Latency", "ITL", s.ITL}, {"End-to-end Latency", "E2EL", s.E2E}} {
		fmt.Fprintf(&b, "%s\n", center(m.title))
		num("Mean "+m.name+" (ms):", m.d.Mean)
		num("Median "+m.name+" (ms):", m.d.Median)
		num("P99 "+m.name+" (ms):", m.d.P[len(m.d.P)-1])
	}
	if r.Sent != nil {
		line("Sent prompts digest:", r.Sent)
	}
	if r.SentMultiset != nil {
		line("Sent prompts as a multiset:", r.SentMultiset)
	}
	b.WriteString("==================================================\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// center pads a section title with dashes to the summary's width.
func center(title string) string {
	const width = 50
	pad := max(width-len(title)-2, 0)
	return strings.Repeat("-", pad/2) + title + strings.Repeat("-", pad-pad/2)
}
