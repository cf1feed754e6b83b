package records

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
)

// Spec says how to read a record and what it must hold.
type Spec struct {
	// Format names the parser (a key of parsers).
	Format string
	// Requested is the number of requests the workload sent; 0 when the
	// record says (workload.requests: from-record).
	Requested int
	// Pattern is the regular expression of the regex format.
	Pattern string
	// Metric is the headline metric the record must hold.
	Metric string
	// Flag, when set, names a validity flag the scenario requires
	// (throughput.valid) in a JSON record.
	Flag string
	// Result names this run's result in a file that holds several (a
	// hyperfine export of two commands, a Go benchmark run, a multi-job
	// fio run): the command, benchmark or job name. A file of several
	// results read without one is unreadable, naming the results it has
	// (see Record.choose).
	Result string
	// SLO, when set, are the scenario's objectives of a request: a
	// serving result with per-request lists then holds the goodput.
	SLO *SLO
}

// parsers reads each format, by name. A parser fills the record from the
// file's bytes, saying every problem it meets; it need not judge the
// counts or the metrics: finish does, after it, for every format.
var parsers = map[string]func(r *Record, data []byte, spec Spec){
	"vllm":                (*Record).parseVLLM,
	"trtllm":              (*Record).parseVLLM,
	"vllm-append":         (*Record).parseVLLMAppend,
	"sglang":              (*Record).parseSGLang,
	"aiperf":              (*Record).parseAIPerf,
	"console":             (*Record).parseConsole,
	"regex":               (*Record).parseRegex,
	"mlperf":              (*Record).parseMLPerf,
	"k6":                  (*Record).parseK6,
	"pgbench":             (*Record).parsePgbench,
	"sysbench":            (*Record).parseSysbench,
	"hyperfine":           (*Record).parseHyperfine,
	"gobench":             (*Record).parseGoBench,
	"pytest-benchmark":    (*Record).parsePytestBenchmark,
	"fio":                 (*Record).parseFio,
	"nccl-tests":          (*Record).parseNCCLTests,
	"wrk":                 (*Record).parseWrk,
	"memtier":             (*Record).parseMemtier,
	"redis-benchmark-csv": (*Record).parseRedisBenchmarkCSV,
	"genai-perf":          (*Record).parseGenAIPerf,
	"guidellm":            (*Record).parseGuideLLM,
	"inference-perf":      (*Record).parseInferencePerf,
	"llmperf":             (*Record).parseLLMPerf,
	"llmperf-responses":   (*Record).parseLLMPerfResponses,
	"trtllm-bench":        (*Record).parseTRTLLMBench,
}

// Formats are the names of the formats a record can be read in, sorted.
func Formats() []string { return slices.Sorted(maps.Keys(parsers)) }

// utf8BOM is the UTF-8 byte-order mark some tools write first.
var utf8BOM = []byte("\xef\xbb\xbf")

// Parse reads a record already read from the file named path. A record
// that cannot be parsed, or breaks a rule (see Record.finish), is returned
// with Valid false and its problems; so is one of an unknown format.
func Parse(data []byte, path string, spec Spec) *Record {
	r := newRecord(spec.Format, path)
	parse, ok := parsers[spec.Format]
	if !ok {
		r.unreadable("unknown throughput record format %q", spec.Format)
		return r
	}
	// A byte-order mark (Windows tools, PowerShell's redirection, Excel's
	// CSV) is no part of any format: every format reads what follows it.
	parse(r, bytes.TrimPrefix(data, utf8BOM), spec)
	if spec.Result != "" && !r.chose && !r.Unreadable {
		// The scenario names a result the format has no way to choose:
		// what it compares would not be what it names.
		r.unreadable("a %s record is one result: it takes no throughput.result (%q)", spec.Format, spec.Result)
	}
	r.finish(spec)
	return r
}

// ParseFile reads and parses the record at path. An unknown format or an
// unreadable file is an error; a record that does not parse is not (see
// Parse).
func ParseFile(path string, spec Spec) (*Record, error) {
	if _, ok := parsers[spec.Format]; !ok {
		return nil, fmt.Errorf("unknown throughput record format %q", spec.Format)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path, spec), nil
}
