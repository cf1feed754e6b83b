package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

var consoleLine = lazyregexp.New(`(?i)^\s*(Successful requests|Failed requests|Output token throughput \(tok/s\)|Total Token throughput \(tok/s\)|Total throughput \(tok/s\)|Request throughput \(req/s\)|Benchmark duration \(s\)|Number of requests|Token Throughput \(tokens/sec\)|Total Output Throughput \(tokens/sec\)|Total Token Throughput \(tokens/sec\)|Request Throughput \(req/sec\)|Total Latency \(ms\)):\s*([0-9.eE+-]+)`)

// consoleBanner is the line a summary starts with: vLLM's and SGLang's
// "==== Serving Benchmark Result ====", trtllm-bench's "= PERFORMANCE
// OVERVIEW". A log of several runs holds one per run.
var consoleBanner = lazyregexp.New(`(?m)^=+ ?(Serving Benchmark Result|PERFORMANCE OVERVIEW)\b`)

// consoleLatency is a latency line of vLLM's and SGLang's summaries:
// "P99 TTFT (ms):", "Median E2E Latency (ms):".
var consoleLatency = lazyregexp.New(`(?i)^\s*(Mean|Median|Std|Min|Max|P[0-9]+(?:\.[0-9]+)?) (TTFT|TPOT|ITL|E2EL|E2E Latency) \(ms\):\s*([0-9.eE+-]+)\s*$`)

// parseConsole reads the benchmark's console summary; a "!FAILED REQUESTS!"
// marker or failed requests make it invalid. Without a "Failed requests:"
// line, failures are the requested count minus the successful ones. A log
// of several summaries (runs appended to one log) is read for the one
// throughput.result names by its place, as chooseRun has it: read whole,
// the last value of each line would mix the runs.
func (r *Record) parseConsole(data []byte, spec Spec) {
	runs := consoleRuns(string(data), consoleBanner, "")
	text, ok := r.chooseRun(runs, spec.Result)
	if !ok {
		return
	}
	if len(runs) == 1 {
		text = string(data) // a marker before the banner is the run's too
	}
	if strings.Contains(text, "!FAILED REQUESTS!") {
		r.problem("the summary carries a !FAILED REQUESTS! marker")
	}
	found := false
	for _, line := range strings.Split(text, "\n") {
		if l := consoleLatency.FindStringSubmatch(line); l != nil {
			r.consoleLatency(l[1], l[2], l[3])
			continue
		}
		m := consoleLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		found = true
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			r.problem("%s: %q is not a number", m[1], m[2])
			continue
		}
		// vLLM and SGLang print the first spelling of each line; trtllm-bench's
		// PERFORMANCE OVERVIEW the second ("Number of requests" counts the
		// completed ones: a failed request fails its run, so it has no
		// failure count).
		switch strings.ToLower(m[1]) {
		case "successful requests", "number of requests":
			if n, ok := r.count(m[1], v); ok {
				r.Completed = n
			}
		case "failed requests":
			if n, ok := r.count(m[1], v); ok {
				r.Failed = n
			}
		case "output token throughput (tok/s)", "token throughput (tokens/sec)", "total output throughput (tokens/sec)":
			r.Metrics["output_throughput"] = v
		case "total token throughput (tok/s)", "total throughput (tok/s)", "total token throughput (tokens/sec)":
			r.Metrics["total_token_throughput"] = v
		case "request throughput (req/s)", "request throughput (req/sec)":
			r.Metrics["request_throughput"] = v
		case "benchmark duration (s)":
			r.Metrics["duration"] = v
		case "total latency (ms)":
			r.Metrics["duration"] = v / 1000
		}
	}
	if !found {
		r.unreadable("no benchmark summary lines (vLLM and SGLang: Successful requests:, Output token throughput (tok/s): ...; trtllm-bench: Number of requests:, Token Throughput (tokens/sec): ...)")
	}
	if r.Completed >= 0 && r.Failed >= 0 {
		r.Requested = r.Completed + r.Failed
	}
}

// consoleLatency records a summary's latency line under the scheme's
// name; a value that is no number is a problem naming the line.
func (r *Record) consoleLatency(stat, kind, value string) {
	v, err := strconv.ParseFloat(value, 64)
	if err != nil {
		r.problem("%s %s (ms): %q is not a number", stat, kind, value)
		return
	}
	kind = strings.ToLower(kind)
	if kind == "e2e latency" {
		kind = E2EL
	}
	r.latency(strings.ToLower(stat), kind, v)
}
