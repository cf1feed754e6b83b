package records

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
)

// MaxPlausible bounds every metric: no serving system moves 10^12 tokens
// or requests a second, and a record claiming so is broken.
const MaxPlausible = 1e12

// metricWords are the names problems give the metrics that have a
// reader's name.
var metricWords = map[string]string{"output_throughput": "output token throughput"}

// finish applies the rules every format shares, after its parser: the
// record must hold the spec's metric and, when the spec names one, its
// validity flag; the spec's requested count is the workload's (0 when
// unknown). Valid means: the record parsed; it holds
// the metric; completed is known, whole and non-negative, equals the
// requests, and no request failed; the record's own request count equals
// the workload's; every metric is finite, positive and below MaxPlausible.
func (r *Record) finish(spec Spec) {
	requested, flag, metric := spec.Requested, spec.Flag, spec.Metric
	if r.WorkUnit() != UnitRequests {
		// The workload's request count is of prompts sent to a server; a
		// record counting other work is held to its own counts alone.
		requested = 0
	}
	if requested > 0 && r.Requested >= 0 && r.Requested != requested {
		r.problem("the record's own request count (%d) is not the workload's requests (%d)", r.Requested, requested)
	}
	if requested > 0 && r.Requested < 0 {
		r.Requested = requested
	}
	if r.Requested >= 0 && r.Completed >= 0 && r.Failed < 0 {
		r.Failed = r.Requested - r.Completed
	}
	_, hasMetric := r.Metrics[metric]
	switch {
	case hasMetric || r.Unreadable || r.Completed >= 0 || r.Failed >= 0 || r.Verdict != nil:
	case len(r.Metrics) == 0:
		// Nothing of what the format writes is here (not even the tool's
		// verdict, as of a run it stopped): the file is not a record of
		// this format, which is the root cause, not a failure.
		r.unreadable("holds nothing a %s record has (no count, no metric): is it a %s record?", r.Format, r.Format)
	default:
		// A key of another tool's file that has this format's name (a
		// duration) is no record of it either: without a count and the
		// headline, nothing shows a request failed.
		r.unreadable("holds neither a count nor the %s a %s record has (only %s): is it a %s record?",
			cmp.Or(metricWords[metric], metric), r.Format, strings.Join(slices.Sorted(maps.Keys(r.Metrics)), ", "), r.Format)
	}
	r.counts(requested)
	if !hasMetric {
		r.problem("no %s", cmp.Or(metricWords[metric], metric))
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

// counts says what the record's counts show. The counts come first among
// the problems of a readable record: failed work is the usual root cause
// of a missing or zero throughput (a tool that saw no request succeed
// writes no throughput, and may write no completed count either).
func (r *Record) counts(requested int) {
	if r.Unreadable {
		return
	}
	switch {
	case r.Failed > 0 && r.Requested >= 0:
		r.problem("%d of %d %s failed", r.Failed, r.Requested, r.WorkUnit())
	case r.Failed > 0:
		r.problem("%d %s failed", r.Failed, r.WorkUnit())
	case r.Completed < 0 && r.Verdict != nil && requested == 0:
		// A tool that judges its own run and prints no count (MLPerf
		// LoadGen's summary: its VALID covers the queries it ran) is
		// held to its verdict instead.
	case r.Completed < 0:
		r.problem("no count of completed %s", r.WorkUnit())
	case r.Requested >= 0 && r.Completed > r.Requested:
		r.problem("completed %d is more than the %d %s", r.Completed, r.Requested, r.WorkUnit())
	case requested > 0 && r.Completed < requested:
		r.problem("%d of %d requested %s completed", r.Completed, requested, r.WorkUnit())
	}
}
