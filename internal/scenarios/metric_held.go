package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/records"
)

// MetricRefusal says why a scenario's record cannot hold a metric: Lead
// names the metric as a scenario's field says it, What is refused, Near
// the metric it can hold nearest (a typo's "did you mean"; "" for none),
// Have what it holds instead ("" where What says).
type MetricRefusal struct{ Lead, What, Near, Have string }

// Text is the refusal as validate says it, the nearest metric asked
// about before the (long) list of those the record holds.
func (r MetricRefusal) Text() string {
	s := r.Lead + r.What
	if r.Near != "" {
		s += "; did you mean " + r.Near + "?"
	}
	return s + r.have()
}

// Flag is the refusal of --metric NAME, for an error whose hint asks
// about Near.
func (r MetricRefusal) Flag(name string) string { return "--metric " + name + ": " + r.What + r.have() }

func (r MetricRefusal) have() string {
	if r.Have == "" {
		return ""
	}
	return " (they have " + r.Have + ")"
}

// MetricProblem says why the scenario's throughput record cannot hold
// metric (nil when it can). A record of abbench's own client is held to
// what the client writes (its latencies' mean, median, std and
// loadgen.Percentiles: no min, max or p99.9); any other to what its
// format can hold (records.Provides). validate and run --metric both ask
// it, before anything runs: a metric no record holds would be found only
// after every run, by compare.
func (s *Scenario) MetricProblem(metric string) *MetricRefusal {
	t := s.Evidence.Throughput
	if t == nil || t.Format == "regex" {
		return nil
	}
	slo := t.SLO.Set()
	switch {
	case metric == "":
		return &MetricRefusal{What: "an empty metric: name one of the record's", Have: records.ProvidedList(t.Format)}
	case metric == records.Goodput && !slo && records.Provides(t.Format, metric, true):
		return &MetricRefusal{Lead: "metric goodput ", What: "needs the requests' objectives: declare evidence.throughput.slo (ttft, tpot, e2e in ms)"}
	case !records.Provides(t.Format, metric, slo):
		return &MetricRefusal{Lead: fmt.Sprintf("metric %q: ", metric), What: t.Format + " records have no such metric", Near: records.Nearest(t.Format, metric), Have: records.ProvidedList(t.Format)}
	case s.ownClientRecord(t):
		if stat, kind, ok := records.IsLatencyMetric(metric); ok && !slices.Contains(ownClientStats(), stat) {
			stats := ownClientStats()
			return &MetricRefusal{
				Lead: fmt.Sprintf("metric %q: ", metric),
				What: fmt.Sprintf("abbench's own client writes no %s of %s into its record (%s): it writes each latency's %s, as STAT_KIND_ms", stat, kind, OpenAIResult, strings.Join(stats, ", ")),
				Near: ownClientNearest(stat, kind)}
		}
	}
	return nil
}

// ownClientRecord says whether t is the record abbench's own client
// writes: a role of the scenario is an openai: client, and t its result.
func (s *Scenario) ownClientRecord(t *Throughput) bool {
	return t.File == OpenAIResult && t.Format == "vllm" &&
		slices.ContainsFunc(s.Roles, func(r Role) bool { return r.OpenAI != nil })
}

// ownClientStats are the statistics of each latency abbench's own client
// writes into its record (loadgen's Result): mean, median, std and its
// percentiles.
func ownClientStats() []string {
	stats := []string{"mean", "median", "std"}
	for _, q := range loadgen.Percentiles {
		stats = append(stats, fmt.Sprintf("p%g", q))
	}
	return stats
}

// ownClientNearest is the statistic of kind the client writes nearest to
// stat, as a metric: p99 for p99.9, median for p50's name typed otherwise.
func ownClientNearest(stat, kind string) string {
	best, bestD := "", 0.0
	var q float64
	if _, err := fmt.Sscanf(stat, "p%g", &q); err == nil {
		for _, p := range loadgen.Percentiles {
			if d := abs(p - q); best == "" || d < bestD {
				best, bestD = fmt.Sprintf("p%g", p), d
			}
		}
		return best + "_" + kind + "_ms"
	}
	return ""
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
