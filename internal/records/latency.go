package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// The latencies of a serving benchmark, under one naming scheme across
// formats: vLLM's, which its users type (p99_ttft_ms, median_itl_ms,
// mean_e2el_ms). A name is STAT_KIND_ms: KIND one of LatencyKinds, STAT
// mean, median, std, min, max or pQ (any percentile the tool wrote, as
// vLLM's --metric-percentiles names it: p99, p99.9), always in
// milliseconds, whatever unit the tool wrote.
const (
	TTFT = "ttft" // time to the first token
	TPOT = "tpot" // time per output token after the first, per request
	ITL  = "itl"  // the tool's inter-token latency
	E2EL = "e2el" // end-to-end latency of a request
)

// LatencyKinds are the latencies a serving record can hold, in the order
// listings say them.
var LatencyKinds = []string{TTFT, TPOT, ITL, E2EL}

// latencyName matches a name of the scheme.
var latencyName = lazyregexp.New(`^(mean|median|std|min|max|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el)_ms$`)

// servingLatencyKey matches the flat keys of vLLM's result (and SGLang's,
// which spells end-to-end e2e_latency, and writes max_ too).
var servingLatencyKey = lazyregexp.New(`^(mean|median|std|min|max|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$`)

// LatencyMetric names a latency statistic in the scheme: ("p99", "ttft")
// is p99_ttft_ms.
func LatencyMetric(stat, kind string) string { return stat + "_" + kind + "_ms" }

// IsLatencyMetric says whether name is of the scheme, and its statistic
// and kind.
func IsLatencyMetric(name string) (stat, kind string, ok bool) {
	m := latencyName.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// servingLatencies reads the flat latency keys of a serving result (ms):
// every statistic the tool wrote, each under the scheme's name.
func (r *Record) servingLatencies(obj map[string]any) {
	for key, v := range obj {
		m := servingLatencyKey.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		kind := m[2]
		if kind == "e2e_latency" {
			kind = E2EL
		}
		if f, ok := number(v); ok {
			r.latency(m[1], kind, f)
		}
	}
}

// latency records one latency statistic already in ms. A zero is left
// out, as a statistic of no values (vLLM writes 0 for the ITL of a run
// without streaming), since every metric must be above 0.
func (r *Record) latency(stat, kind string, ms float64) {
	r.optionalMetric(LatencyMetric(stat, kind), ms)
}

// latencyBlock reads a block of statistics of one latency, as AIPerf,
// GenAI-Perf, inference-perf, GuideLLM and trtllm-bench write them
// ({avg, p50, p99, std, min, max} in their spellings), scaled to ms by
// toMS. A block's p50 is its median too when it names none.
func (r *Record) latencyBlock(kind string, toMS float64, block any) {
	obj, ok := block.(map[string]any)
	if !ok {
		return
	}
	if pcts, ok := obj["percentiles"].(map[string]any); ok { // GuideLLM nests them
		for key, v := range pcts {
			if q, ok := guidellmPercentile(key); ok {
				if f, ok := number(v); ok {
					r.latency(q, kind, f*toMS)
				}
			}
		}
	}
	_, hasMedian := obj["median"]
	for key, v := range obj {
		f, ok := number(v)
		if !ok {
			continue
		}
		stat, ok := blockStat(key)
		if !ok {
			continue
		}
		r.latency(stat, kind, f*toMS)
		if stat == "p50" && !hasMedian {
			r.latency("median", kind, f*toMS)
		}
	}
}

// blockStat is the scheme's statistic of a block's key.
func blockStat(key string) (string, bool) {
	switch key {
	case "avg", "mean", "average":
		return "mean", true
	case "median":
		return "median", true
	case "std", "stddev", "std_dev":
		return "std", true
	case "min", "minimum":
		return "min", true
	case "max", "maximum":
		return "max", true
	}
	if q, ok := strings.CutPrefix(key, "p"); ok {
		if _, err := strconv.ParseFloat(q, 64); err == nil && !strings.ContainsAny(q, "+-eE") {
			return key, true
		}
	}
	return "", false
}

// guidellmPercentile reads GuideLLM's percentile keys, whose three
// digits are tenths (p001 is 0.1, p999 99.9) and two whole (p05 is 5).
func guidellmPercentile(key string) (string, bool) {
	d, ok := strings.CutPrefix(key, "p")
	if !ok || d == "" || strings.Trim(d, "0123456789") != "" {
		return "", false
	}
	n, _ := strconv.Atoi(d)
	if len(d) == 3 {
		return "p" + strconv.FormatFloat(float64(n)/10, 'f', -1, 64), true
	}
	return "p" + strconv.Itoa(n), true
}

// latencyUnitToMS is the factor that turns a block's unit (AIPerf and
// GenAI-Perf write it beside each block) into ms; false for a unit that
// is no time.
func latencyUnitToMS(unit string) (float64, bool) {
	switch strings.ToLower(unit) {
	case "ms", "":
		return 1, true
	case "s", "sec", "secs", "seconds":
		return 1000, true
	case "us", "µs":
		return 1e-3, true
	case "ns":
		return 1e-6, true
	}
	return 0, false
}

// toolLatency is where a tool keeps each latency: the block's key and
// the factor to ms (0: the block says its unit, as AIPerf's and
// GenAI-Perf's do).
type toolLatency struct {
	kind string
	path []string
	toMS float64
}

// latenciesAt reads each latency block of paths from obj.
func (r *Record) latenciesAt(obj any, paths []toolLatency) {
	for _, l := range paths {
		block, ok := lookup(obj, l.path...)
		if !ok {
			continue
		}
		toMS := l.toMS
		if toMS == 0 {
			unit, _ := lookup(block, "unit")
			s, _ := unit.(string)
			if toMS, ok = latencyUnitToMS(s); !ok {
				continue // not a time: nothing to read as one
			}
		}
		r.latencyBlock(l.kind, toMS, block)
	}
}

// unitBlockLatencies are AIPerf's and GenAI-Perf's latency blocks, each
// with its unit. Both tools' inter_token_latency is a request's time
// after its first token per further token, averaged over requests: what
// vLLM calls TPOT; it keeps the tools' name, itl, as their users know it.
var unitBlockLatencies = []toolLatency{
	{TTFT, at("time_to_first_token"), 0},
	{ITL, at("inter_token_latency"), 0},
	{E2EL, at("request_latency"), 0},
}
