// Package records reads the records benchmark clients write (vLLM, SGLang,
// TensorRT-LLM, AIPerf, console summaries, a scenario's regex) into one
// Record: its request counts, its headline metrics under abbench's names,
// and every problem that makes it invalid. Each format is a parser of its
// own file, listed in registry.go; the rules every format shares (finish.go)
// run after the parser, so no format can skip them.
package records

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Record is a benchmark client's throughput record, parsed.
type Record struct {
	Format string `json:"format"`
	File   string `json:"file"`
	// Valid is true only if the record parsed, said as its tool says it
	// that every request succeeded, carries a true flag where the tool (or
	// the scenario) has one, and is plausible: see Record.finish.
	Valid    bool     `json:"valid"`
	Problems []string `json:"problems"`
	// Unreadable is true when the file could not be read as its format:
	// it does not parse, or holds nothing of what the format writes (no
	// headline, no count). Its problem is the root cause of the record's
	// censoring: nothing is known to have failed.
	Unreadable bool `json:"unreadable,omitempty"`
	// Unit is what Requested, Completed and Failed count, when the
	// format counts other work than requests (UnitRequests is left out,
	// so the evidence of request records reads as it always has): see
	// WorkUnit.
	Unit string `json:"unit,omitempty"`
	// Requested, Completed and Failed count units of work; -1 when the
	// format does not say.
	Requested int `json:"requested"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// Verdict is the tool's own judgment of its run, nil for a format
	// (or a file) that gives none.
	Verdict *Verdict `json:"verdict,omitempty"`
	// Metrics hold the headline numbers under abbench's names:
	// output_throughput, request_throughput, total_token_throughput (tok/s,
	// req/s) and duration (s), when the record has them.
	Metrics map[string]float64 `json:"metrics"`
	// ValidityFlag is the record's own flag, nil when absent.
	ValidityFlag *bool `json:"validity_flag"`
	// Sweep is what a tool that sweeps a parameter ran, in its order:
	// nccl-tests' message sizes in bytes (-b, -e, -f, -i). It is part of
	// the matched workload (compare censors runs of other sweeps: other
	// sizes average to another bus bandwidth); nil for tools that do not
	// sweep.
	Sweep []uint64 `json:"sweep,omitempty"`
	// OutputTokens is how many tokens the run generated, where the
	// record says (total_output_tokens); nil when it does not. Arms that
	// generated different amounts did different work: see
	// {output_tokens: equal}.
	OutputTokens *int `json:"output_tokens,omitempty"`
	// FirstFailure is the record's first failed request, as it names it
	// (abbench's client: first_failure; vLLM's: the first non-empty of
	// errors, with its place), bounded and without a URL's password; ""
	// when it names none. A run censored requests-failed says it: "256
	// failed" alone does not say that the server was never reached.
	FirstFailure string `json:"first_failure,omitempty"`
	// chose is set when the parser chose among the file's results by
	// name (choose): a Spec.Result no parser reads is an error, not
	// ignored.
	chose bool
}

// The units of work formats count. Only UnitRequests is checked against
// the workload's request count: the others are the tool's own.
const (
	UnitRequests     = "requests"
	UnitQueries      = "queries"      // MLPerf LoadGen's samples and queries
	UnitRuns         = "runs"         // timed runs of a command or a benchmark
	UnitJobs         = "jobs"         // fio's jobs
	UnitSizes        = "sizes"        // nccl-tests' message sizes
	UnitTransactions = "transactions" // sysbench, pgbench
	UnitOperations   = "operations"   // key-value operations
)

// Verdict is what a tool says of its own run: MLPerf LoadGen's "Result is :
// VALID", k6's thresholds, pgbench's "Run was aborted". A record whose tool
// says its run is not valid is never valid.
type Verdict struct {
	Valid bool `json:"valid"`
	// Reasons are the tool's own words for a run that is not valid.
	Reasons []string `json:"reasons"`
}

func newRecord(format, file string) *Record {
	return &Record{Format: format, File: file, Requested: -1, Completed: -1, Failed: -1, Metrics: map[string]float64{}, Problems: []string{}}
}

// WorkUnit is what the record's counts count: its Unit, or requests.
func (r *Record) WorkUnit() string {
	if r.Unit == "" {
		return UnitRequests
	}
	return r.Unit
}

// unreadable says why the file cannot be read as its format; the record
// is Unreadable, and this problem comes first.
func (r *Record) unreadable(format string, args ...any) {
	r.Unreadable = true
	r.Problems = append([]string{fmt.Sprintf(format, args...)}, r.Problems...)
}

// choose picks the one result of a file that holds several by its name
// (Spec.Result): names are the file's results, in its order. Without a
// name a file of one result gives it; anything else is unreadable,
// listing the names, so a scenario never compares whichever came first:
// a name that several results share is ambiguous too.
func (r *Record) choose(names []string, want string) (int, bool) {
	r.chose = true
	switch {
	case want != "":
		at, found := 0, 0
		for i, n := range names {
			if n != want {
				continue
			}
			if found == 0 {
				at = i
			}
			found++
		}
		switch found {
		case 1:
			return at, true
		case 0:
			r.unreadable("holds no result named %q (it holds %s)", want, quoteList(names))
		default:
			r.unreadable("holds %d results named %q: which one is this run's is ambiguous", found, want)
		}
	case len(names) == 1:
		return 0, true
	case len(names) == 0:
		r.unreadable("holds no result")
	default:
		r.unreadable("holds %d results (%s): name this run's with throughput.result", len(names), quoteList(names))
	}
	return 0, false
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// verdict records the tool's own verdict; a run it does not call valid
// gets a problem naming the tool's reasons.
func (r *Record) verdict(valid bool, reasons ...string) {
	r.Verdict = &Verdict{Valid: valid, Reasons: append([]string{}, reasons...)}
	if !valid {
		r.problem("the tool says the run is not valid: %s", r.Verdict.Why())
	}
}

// Why is the tool's reasons, in its words.
func (v *Verdict) Why() string {
	if len(v.Reasons) == 0 {
		return "no reason given"
	}
	return strings.Join(v.Reasons, "; ")
}

// NotRead is the record of a file that could not be read: invalid, its
// problem saying why.
func NotRead(format, file, why string) *Record {
	r := newRecord(format, file)
	r.unreadable("no record: %s", why)
	return r
}

func (r *Record) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// count reads a request count: a whole, non-negative number, or a problem
// naming the key.
func (r *Record) count(key string, v any) (int, bool) {
	f, ok := number(v)
	switch {
	case !ok:
		r.problem("%s is not a number", key)
	case f < 0:
		r.problem("%s %v is negative", key, f)
	case f != math.Trunc(f):
		r.problem("%s %v is not a whole number", key, f)
	default:
		return int(f), true
	}
	return 0, false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
