package records

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/suggest"
)

// provision is what metrics a format's records can hold: names, the
// latencies of the scheme (LatencyMetric) of kinds, only their means when
// meansOnly, and goodput when it has per-request lists.
type provision struct {
	names     []string
	kinds     []string
	meansOnly bool
	goodput   bool
	// outputTokens: the record says how many tokens the run generated
	// (Record.OutputTokens).
	outputTokens bool
}

func namesOf(paths []metricPath) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p.name
	}
	return out
}

// provisions are the formats whose metrics are known before a run, each
// from its reader's own tables. A format missing here (regex, memtier,
// gobench and the others whose names come from the file) is checked
// against its records alone.
var provisions = map[string]provision{
	"vllm":           {names: servingMetrics, kinds: LatencyKinds, goodput: true, outputTokens: true},
	"vllm-append":    {names: servingMetrics, kinds: LatencyKinds, goodput: true, outputTokens: true},
	"trtllm":         {names: servingMetrics, kinds: LatencyKinds, goodput: true, outputTokens: true},
	"sglang":         {names: append(slices.Clone(servingMetrics), "input_throughput"), kinds: LatencyKinds, goodput: true, outputTokens: true},
	"console":        {names: servingMetrics, kinds: LatencyKinds},
	"aiperf":         {names: servingMetrics, kinds: []string{TTFT, ITL, E2EL}},
	"genai-perf":     {names: namesOf(genaiPerfMetrics), kinds: []string{TTFT, ITL, E2EL}},
	"guidellm":       {names: namesOf(guidellmMetrics), kinds: LatencyKinds},
	"inference-perf": {names: namesOf(inferencePerfMetrics), kinds: LatencyKinds},
	"llmperf":        {names: append(namesOf(llmperfMetrics), "request_throughput"), kinds: []string{TTFT, ITL, E2EL}},
	"llmperf-responses": {names: []string{"request_output_throughput", "mean_ttft_s", "mean_itl_s", "mean_e2el_s"},
		kinds: []string{TTFT, ITL, E2EL}, meansOnly: true},
	"trtllm-bench": {names: append(namesOf(trtllmBenchMetrics), "duration"), kinds: []string{TTFT, TPOT, E2EL}},
}

// Provides says whether a record of format can hold metric: true for a
// format whose metrics are known only from its files (see provisions).
// Goodput needs the scenario's SLOs (slo).
func Provides(format, metric string, slo bool) bool {
	p, ok := provisions[format]
	if !ok || slices.Contains(p.names, metric) {
		return true
	}
	if metric == Goodput {
		return p.goodput && slo
	}
	stat, kind, ok := IsLatencyMetric(metric)
	return ok && slices.Contains(p.kinds, kind) && (!p.meansOnly || stat == "mean")
}

// MetricsKnown says whether a format's metrics are known before a run
// (Provides can refuse one).
func MetricsKnown(format string) bool { _, ok := provisions[format]; return ok }

// ProvidedList says the metrics a format's records can hold, for an
// error that refuses another: "" for a format known only from its files.
func ProvidedList(format string) string {
	p, ok := provisions[format]
	if !ok {
		return ""
	}
	list := strings.Join(p.names, ", ")
	if p.goodput {
		list += ", goodput (with the scenario's slo:)"
	}
	stats := "mean, median, std, min, max or pQ (a percentile the tool wrote: p99, p99.9)"
	if p.meansOnly {
		stats = "mean"
	}
	return fmt.Sprintf("%s; and the latencies STAT_KIND_ms: KIND %s, STAT %s (p99_ttft_ms, median_itl_ms)", list, strings.Join(p.kinds, ", "), stats)
}

// Nearest is the metric a format's records can hold that is nearest to
// metric, within a quarter of its length in edits (a typo: p99_ttf_ms
// for p99_ttft_ms), for a refusal's "did you mean"; "" when none is.
func Nearest(format, metric string) string {
	p, ok := provisions[format]
	if !ok {
		return ""
	}
	candidates := slices.Clone(p.names)
	if p.goodput {
		candidates = append(candidates, "goodput")
	}
	stats := []string{"mean", "median", "std", "min", "max", "p50", "p90", "p95", "p99", "p99.9"}
	if p.meansOnly {
		stats = stats[:1]
	}
	for _, kind := range p.kinds {
		for _, stat := range stats {
			candidates = append(candidates, stat+"_"+kind+"_ms")
		}
	}
	return suggest.Closest(metric, candidates, max(1, len(metric)/4))
}

// CountsOutputTokens says whether a format's records say how many tokens
// the run generated.
func CountsOutputTokens(format string) bool { return provisions[format].outputTokens }
