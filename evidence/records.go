package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/scenarios"
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

// ValidityKey is the validity flag abbench's simulator writes; a record
// that carries it false is invalid. No format requires it.
const ValidityKey = "valid"

// toolFlags are the validity flags real tools write: TensorRT-LLM's perf
// database records carry b_is_valid. A record that has one must have it true.
var toolFlags = []string{ValidityKey, "b_is_valid"}

// MaxPlausible bounds every metric: no serving system moves 10^12 tokens
// or requests a second, and a record claiming so is broken.
const MaxPlausible = 1e12

func (r *Record) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// finish applies the rules every format shares. metric is the headline
// metric the record must hold; flag, when set, names a validity flag the
// scenario requires (throughput.valid). requested is the workload's
// request count (0 when unknown). Valid means: the record parsed; it holds
// the metric; completed is known, whole and non-negative, equals the
// requests, and no request failed; the record's own request count equals
// the workload's; every metric is finite, positive and below MaxPlausible.
func (r *Record) finish(requested int, flag string, metric string) {
	if requested > 0 && r.Requested >= 0 && r.Requested != requested {
		r.problem("the record's own request count (%d) is not the workload's requests (%d)", r.Requested, requested)
	}
	if requested > 0 && r.Requested < 0 {
		r.Requested = requested
	}
	if r.Requested >= 0 && r.Completed >= 0 && r.Failed < 0 {
		r.Failed = r.Requested - r.Completed
	}
	// The counts come first: failed requests are the usual root cause of a
	// missing or zero throughput (a tool that saw no request succeed
	// writes no throughput, and may write no completed count either).
	switch {
	case r.Failed > 0 && r.Requested >= 0:
		r.problem("%d of %d requests failed", r.Failed, r.Requested)
	case r.Failed > 0:
		r.problem("%d requests failed", r.Failed)
	case r.Completed < 0:
		r.problem("no count of completed requests")
	case r.Requested >= 0 && r.Completed > r.Requested:
		r.problem("completed %d is more than the %d requests", r.Completed, r.Requested)
	case requested > 0 && r.Completed < requested:
		r.problem("%d of %d requested requests completed", r.Completed, requested)
	}
	if _, ok := r.Metrics[metric]; !ok {
		if metric == scenarios.DefaultMetric {
			r.problem("no output token throughput")
		} else {
			r.problem("no %s", metric)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Metrics)) {
		if v := r.Metrics[name]; math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v >= MaxPlausible {
			r.problem("%s %g is not plausible (a finite value above 0 and below %g)", name, v, MaxPlausible)
		}
	}
	if flag != "" && r.ValidityFlag == nil {
		r.problem("the record lacks its validity flag %q (the scenario requires it)", flag)
	}
	if r.ValidityFlag != nil && !*r.ValidityFlag {
		r.problem("the record's validity flag is false")
	}
	r.Valid = len(r.Problems) == 0
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

func newRecord(format, file string) *Record {
	return &Record{Format: format, File: file, Requested: -1, Completed: -1, Failed: -1, Metrics: map[string]float64{}, Problems: []string{}}
}

// ParseRecord parses the record at path in format. requested is the number
// of requests the scenario sent (0 when unknown); pattern is the regular
// expression of the regex format. A record that cannot be parsed is
// returned with Valid false and the problem, not as an error: an unreadable
// file is an error. The record must hold output_throughput.
func ParseRecord(path, format string, requested int, pattern string) (*Record, error) {
	return ParseRecordMetric(path, format, requested, pattern, scenarios.DefaultMetric)
}

// ParseRecordMetric is ParseRecord with another required headline metric.
func ParseRecordMetric(path, format string, requested int, pattern, metric string) (*Record, error) {
	if !slices.Contains(scenarios.ThroughputFormats, format) {
		return nil, fmt.Errorf("unknown throughput record format %q", format)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRecordBytes(data, path, format, requested, pattern, metric), nil
}

// ParseRecordBytes parses a record already read from the file named path.
func ParseRecordBytes(data []byte, path, format string, requested int, pattern, metric string) *Record {
	return ParseRecordFlag(data, path, format, requested, pattern, metric, "")
}

// ParseRecordFlag is ParseRecordBytes that also requires the validity
// flag named flag (a scenario's throughput.valid) in a JSON record.
func ParseRecordFlag(data []byte, path, format string, requested int, pattern, metric, flag string) *Record {
	r := newRecord(format, path)
	switch format {
	case "vllm", "trtllm":
		r.parseVLLM(data, format, flag)
	case "vllm-append", "sglang":
		r.parseJSONLines(data, format, flag)
	case "aiperf":
		r.parseAIPerf(data, flag)
	case "console":
		r.parseConsole(data)
	case "regex":
		r.parseRegex(data, pattern)
	}
	switch format {
	case "vllm", "trtllm", "vllm-append", "sglang", "aiperf", "console", "regex":
		r.finish(requested, flag, metric)
	default:
		r.problem("unknown throughput record format %q", format)
	}
	return r
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

// pythonJSON replaces the non-standard tokens Python's json module writes
// for float("inf") and float("nan") (Infinity, -Infinity, NaN) with null,
// outside strings, so records written by Python benchmark clients parse.
func pythonJSON(data []byte) []byte {
	if !bytes.Contains(data, []byte("Infinity")) && !bytes.Contains(data, []byte("NaN")) {
		return data
	}
	out := make([]byte, 0, len(data))
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
		}
		replaced := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				out = append(out, "null"...)
				i += len(tok) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, c)
		}
	}
	return out
}

func decodeObject(data []byte) (map[string]any, error) {
	data = pythonJSON(data)
	if key, dup := duplicateKey(data); dup {
		return nil, fmt.Errorf("key %q appears twice (which one counts is up to the reader)", key)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return obj, nil
}

// duplicateKey finds a key given twice in one JSON object, at any depth.
func duplicateKey(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		expect bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{object: true, keys: map[string]bool{}, expect: true})
			case '[':
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.expect {
				if top.keys[t] {
					return t, true
				}
				top.keys[t] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.object {
			top.expect = true
		}
	}
}

// parseVLLM reads a vLLM benchmark_serving result (and the TensorRT-LLM
// copy of that script): completed, num_prompts, the throughput keys, and
// either failed (vLLM) or num_prompts - completed (TensorRT-LLM has no
// failed key), plus errors: any non-empty error is a failed request.
func (r *Record) parseVLLM(data []byte, format, flag string) {
	obj, err := decodeObject(data)
	if err != nil {
		r.problem("does not parse as a %s result: %v", format, err)
		return
	}
	r.fromServingObject(obj)
	r.flags(obj, flag)
}

// servingMetrics are the headline metrics of a serving result, each under
// its own name, in the order their problems are said: a slice, not a map,
// so the same record gives the same problems in the same order (a bundle's
// evidence is derived again and must come out equal).
var servingMetrics = []string{"output_throughput", "request_throughput", "total_token_throughput", "duration"}

func (r *Record) fromServingObject(obj map[string]any) {
	for _, key := range servingMetrics {
		if v, ok := obj[key]; ok {
			if f, ok := number(v); ok {
				r.Metrics[key] = f
			} else {
				r.problem("%s is not a number", key)
			}
		}
	}
	for _, c := range []struct {
		key string
		dst *int
	}{{"completed", &r.Completed}, {"num_prompts", &r.Requested}, {"failed", &r.Failed}} {
		if v, ok := obj[c.key]; ok {
			if n, ok := r.count(c.key, v); ok {
				*c.dst = n
			}
		}
	}
	if errs, ok := obj["errors"].([]any); ok {
		failed := 0
		for _, e := range errs {
			if s, ok := e.(string); ok && s != "" {
				failed++
			}
		}
		if failed > 0 && failed > r.Failed {
			r.Failed = failed
		}
	}
}

// flags reads the tools' validity flags (and the scenario's, flag) from a
// record object.
func (r *Record) flags(obj map[string]any, flag string) {
	for _, key := range append(slices.Clone(toolFlags), flag) {
		v, ok := obj[key]
		if key == "" || !ok {
			continue
		}
		b, isBool := v.(bool)
		if !isBool {
			r.problem("validity flag %q is not true or false", key)
			continue
		}
		if r.ValidityFlag == nil || !b {
			r.ValidityFlag = &b
		}
	}
}

// parseJSONLines reads the newline-separated forms (vLLM --append-result,
// SGLang bench_serving's output file): the last line is the record.
func (r *Record) parseJSONLines(data []byte, format, flag string) {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			last = append(last[:0], line...)
		}
	}
	if last == nil {
		r.problem("holds no %s record", format)
		return
	}
	obj, err := decodeObject(last)
	if err != nil {
		r.problem("last line does not parse as a %s record: %v", format, err)
		return
	}
	r.fromServingObject(obj)
	r.flags(obj, flag)
	if format == "sglang" {
		// SGLang names no request count (nor failures: a workload that sent
		// more requests than completed is how they show); its throughputs
		// hold only completed requests, and it spells the total
		// total_throughput.
		for key, name := range map[string]string{"input_throughput": "input_throughput", "total_throughput": "total_token_throughput"} {
			if f, ok := number(obj[key]); ok {
				r.Metrics[name] = f
			}
		}
	}
}

// parseAIPerf reads profile_export_aiperf.json: metrics are {unit, avg, ...}
// blocks; request_count and error_request_count count requests; a run that
// was_cancelled is invalid.
func (r *Record) parseAIPerf(data []byte, flag string) {
	obj, err := decodeObject(data)
	if err != nil {
		r.problem("does not parse as an AIPerf profile export: %v", err)
		return
	}
	r.flags(obj, flag)
	if reasons, ok := obj["runtime_submission_invalid_reasons"].([]any); ok && len(reasons) > 0 {
		r.problem("the run is not a valid submission: runtime_submission_invalid_reasons %v", reasons)
	}
	// Older exports nest the metric blocks under "records".
	blocks := obj
	if nested, ok := obj["records"].(map[string]any); ok {
		blocks = nested
	}
	avg := func(key string) (float64, bool) {
		block, ok := blocks[key].(map[string]any)
		if !ok {
			return 0, false
		}
		return number(block["avg"])
	}
	for key, name := range map[string]string{"output_token_throughput": "output_throughput", "request_throughput": "request_throughput",
		"total_token_throughput": "total_token_throughput", "benchmark_duration": "duration"} {
		if f, ok := avg(key); ok {
			r.Metrics[name] = f
		}
	}
	if f, ok := avg("request_count"); ok {
		if n, ok := r.count("request_count", f); ok {
			r.Completed = n
		}
	}
	errCount := 0
	if f, ok := number(obj["error_request_count"]); ok {
		errCount, _ = r.count("error_request_count", f)
	} else if f, ok := avg("error_request_count"); ok {
		errCount, _ = r.count("error_request_count", f)
	}
	if list, ok := obj["error_summary"].([]any); ok {
		sum := 0
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				if f, ok := number(m["count"]); ok {
					sum += int(f)
				}
			}
		}
		errCount = max(errCount, sum)
	}
	if r.Completed >= 0 {
		r.Requested = r.Completed + errCount
	}
	r.Failed = errCount
	if c, ok := obj["was_cancelled"].(bool); ok && c {
		r.problem("the benchmark was cancelled (was_cancelled: true)")
	}
}

var consoleLine = regexp.MustCompile(`(?i)^\s*(Successful requests|Failed requests|Output token throughput \(tok/s\)|Total Token throughput \(tok/s\)|Total throughput \(tok/s\)|Request throughput \(req/s\)|Benchmark duration \(s\)|Number of requests|Token Throughput \(tokens/sec\)|Total Output Throughput \(tokens/sec\)|Total Token Throughput \(tokens/sec\)|Request Throughput \(req/sec\)|Total Latency \(ms\)):\s*([0-9.eE+-]+)`)

// parseConsole reads the benchmark's console summary; a "!FAILED REQUESTS!"
// marker or failed requests make it invalid. Without a "Failed requests:"
// line, failures are the requested count minus the successful ones.
func (r *Record) parseConsole(data []byte) {
	if bytes.Contains(data, []byte("!FAILED REQUESTS!")) {
		r.problem("the summary carries a !FAILED REQUESTS! marker")
	}
	found := false
	for _, line := range strings.Split(string(data), "\n") {
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
		r.problem("no benchmark summary lines (vLLM and SGLang: Successful requests:, Output token throughput (tok/s): ...; trtllm-bench: Number of requests:, Token Throughput (tokens/sec): ...)")
	}
	if r.Completed >= 0 && r.Failed >= 0 {
		r.Requested = r.Completed + r.Failed
	}
}

// parseRegex applies a scenario's pattern: named groups output_throughput
// (required), and optionally completed, failed, requested,
// request_throughput, total_token_throughput, duration; the last match wins.
func (r *Record) parseRegex(data []byte, pattern string) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		r.problem("pattern: %v", err)
		return
	}
	all := re.FindAllSubmatch(data, -1)
	if len(all) == 0 {
		r.problem("the pattern matches nothing in the record")
		return
	}
	m := all[len(all)-1]
	for i, name := range re.SubexpNames() {
		if name == "" || m[i] == nil {
			continue
		}
		v, err := strconv.ParseFloat(string(m[i]), 64)
		if err != nil {
			r.problem("group %s: %q is not a number", name, m[i])
			continue
		}
		switch name {
		case "completed", "failed", "requested":
			n, ok := r.count(name, v)
			switch {
			case !ok:
			case name == "completed":
				r.Completed = n
			case name == "failed":
				r.Failed = n
			default:
				r.Requested = n
			}
		default:
			r.Metrics[name] = v
		}
	}
}
