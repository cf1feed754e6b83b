package loadgen

import (
	"encoding/json"
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
	// Sketched says a latency had more than exactLatencies values: its
	// percentiles are within SketchRelativeError of the values of their
	// ranks, no longer the values themselves.
	Sketched bool
}

// Summarize counts r's outcomes and measures its latencies, of the
// requests that succeeded, as vLLM's benchmark does: TPOT is a request's
// time after its first token per further output token. A run counted
// them as they ended (tally); a Result made by hand is counted from its
// Outcomes.
func (r *Result) Summarize() Summary { return r.summaryOf(r.tally()) }

// summaryOf is t's summary over the run's duration.
func (r *Result) summaryOf(t *tally) Summary {
	s := t.summary()
	s.Duration = r.Duration
	if secs := r.Duration.Seconds(); secs > 0 {
		s.RequestRate = float64(s.Completed) / secs
		s.OutputRate = float64(s.OutputTokens) / secs
		s.TokenRate = float64(s.InputTokens+s.OutputTokens) / secs
	}
	return s
}

// tally is what the run counted, or a count of Outcomes.
func (r *Result) tally() *tally {
	if r.measured != nil {
		return r.measured
	}
	return tallyOf(r.Outcomes, true)
}

// FirstFailure is the first request in order of sending that failed
// (nil: none did), kept whatever the number of requests.
func (r *Result) FirstFailure() *Outcome { return r.tally().first }

// Record is the result in the shape of vLLM's benchmark_serving result
// (format vllm reads it), with failed, the validity flag valid (true when
// every request succeeded), the failures by kind and the sent prompts'
// digests besides. Its per-request arrays are read back from where the
// run spooled them: made whole, they are as large as the run.
func (r *Result) Record(now time.Time) (map[string]any, error) {
	t := r.tally()
	rec := r.recordSummary(t, now)
	for i, a := range recordArrays {
		rd, err := t.arrayReader(i)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(io.MultiReader(strings.NewReader("["), rd, strings.NewReader("]")))
		if rec[a.key], err = decodeArray(a.key, dec); err != nil {
			return nil, fmt.Errorf("the spooled %s: %w", a.key, err)
		}
	}
	return rec, nil
}

// decodeArray decodes the record's array key, as Go values of its type.
func decodeArray(key string, dec *json.Decoder) (any, error) {
	switch key {
	case "input_lens", "output_lens":
		var v []int
		err := dec.Decode(&v)
		return v, err
	case "ttfts":
		var v []float64
		err := dec.Decode(&v)
		return v, err
	case "itls":
		var v [][]float64
		err := dec.Decode(&v)
		return v, err
	}
	var v []string
	err := dec.Decode(&v)
	return v, err
}

// recordSummary is Record less its per-request arrays (recordArrays).
func (r *Result) recordSummary(t *tally, now time.Time) map[string]any {
	s := r.summaryOf(t)
	o := r.Options
	n := s.Requested
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
	if o := t.first; o != nil {
		// the first failed request, as load's exit names it: what "failed"
		// alone does not say (a server never reached, a 404)
		rec["first_failure"] = fmt.Sprintf("request %d: %s: %s", o.Index, o.Kind, o.Error)
	}
	if r.Sent != nil {
		rec["prompt_digest"] = r.Sent.String()
	}
	if r.SentMultiset != nil {
		rec["prompt_multiset_digest"] = r.SentMultiset.String()
	}
	if s.Sketched {
		rec["percentiles_relative_error"] = SketchRelativeError
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
