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
	// Requested, Completed and Failed are request counts; -1 when the
	// format does not say.
	Requested int `json:"requested"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// Metrics hold the headline numbers under abbench's names:
	// output_throughput, request_throughput, total_token_throughput (tok/s,
	// req/s) and duration (s), when the record has them.
	Metrics map[string]float64 `json:"metrics"`
	// ValidityFlag is the record's own flag, nil when absent.
	ValidityFlag *bool `json:"validity_flag"`
}

func newRecord(format, file string) *Record {
	return &Record{Format: format, File: file, Requested: -1, Completed: -1, Failed: -1, Metrics: map[string]float64{}, Problems: []string{}}
}

// NotRead is the record of a file that could not be read: invalid, its
// problem saying why.
func NotRead(format, file, why string) *Record {
	r := newRecord(format, file)
	r.problem("no record: %s", why)
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
