package records

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// parseK6 reads k6's end-of-test summary as JSON, in either layout: the
// --summary-export file (a metric's values at its top, a threshold
// {"p(95)<50": true} where true means crossed) or the data k6 hands to
// handleSummary (a metric's "values", a threshold {"ok": false} when
// crossed). Its work is HTTP requests (http_reqs), the failed ones those
// http_req_failed counts (passes: its true values); its verdict is the
// thresholds, when the script set any; failed checks make the run invalid.
func (r *Record) parseK6(data []byte, _ Spec) {
	obj, err := decodeObject(data)
	if err != nil {
		r.unreadable("does not parse as a k6 summary: %v", err)
		return
	}
	metrics, ok := obj["metrics"].(map[string]any)
	if !ok {
		r.unreadable(`has no "metrics" object: is it a k6 summary (--summary-export, or handleSummary's data)?`)
		return
	}
	r.k6Thresholds(metrics)
	r.k6Checks(obj, metrics)
	r.k6Requests(metrics)
	r.k6Headlines(obj, metrics)
}

// k6Values is a metric's values in either layout.
func k6Values(metrics map[string]any, name string) map[string]any {
	m, _ := metrics[name].(map[string]any)
	if v, ok := m["values"].(map[string]any); ok {
		return v
	}
	return m
}

// k6Value is one value of a metric; the export calls a rate's "value"
// what handleSummary calls its "rate".
func k6Value(values map[string]any, stat string) (float64, bool) {
	if v, ok := number(values[stat]); ok {
		return v, true
	}
	if stat == "rate" {
		return number(values["value"])
	}
	return 0, false
}

// k6Thresholds gives the verdict of the thresholds, naming each crossed
// with the metric's value.
func (r *Record) k6Thresholds(metrics map[string]any) {
	var crossed []string
	n := 0
	for _, name := range slices.Sorted(maps.Keys(metrics)) {
		m, _ := metrics[name].(map[string]any)
		thresholds, _ := m["thresholds"].(map[string]any)
		for _, expr := range slices.Sorted(maps.Keys(thresholds)) {
			n++
			var isCrossed, ok bool
			switch t := thresholds[expr].(type) {
			case bool:
				isCrossed, ok = t, true
			case map[string]any:
				passed, isBool := t["ok"].(bool)
				isCrossed, ok = !passed, isBool
			}
			if !ok {
				r.problem("%s: threshold %q is not true, false or {\"ok\": true or false}", name, expr)
				continue
			}
			if isCrossed {
				crossed = append(crossed, name+": threshold "+expr+" crossed"+k6ValueNote(k6Values(metrics, name), expr))
			}
		}
	}
	if n > 0 {
		r.verdict(len(crossed) == 0, crossed...)
	}
}

// k6ValueNote is the value a threshold tested, " (p(95) 165.3)", when
// the summary has it.
func k6ValueNote(values map[string]any, expr string) string {
	stat := strings.TrimSpace(expr[:strings.IndexAny(expr+"<", "<>=!")])
	if v, ok := k6Value(values, stat); ok {
		return fmt.Sprintf(" (%s %g)", stat, v)
	}
	return ""
}

// k6Checks says the checks that failed, by the checks metric and by
// name from the groups.
func (r *Record) k6Checks(obj, metrics map[string]any) {
	failed, _ := k6Value(k6Values(metrics, "checks"), "fails")
	passed, _ := k6Value(k6Values(metrics, "checks"), "passes")
	var named []string
	k6FailedChecks(obj["root_group"], &named)
	if failed > 0 || len(named) > 0 {
		r.problem("k6 checks failed: %g of %g (%s)", failed, failed+passed, strings.Join(named, ", "))
	}
}

// k6FailedChecks lists a group's failed checks, "path" fails, and its
// groups' (a map in the export, a list in handleSummary's data).
func k6FailedChecks(group any, out *[]string) {
	g, _ := group.(map[string]any)
	for _, c := range k6List(g["checks"]) {
		check, _ := c.(map[string]any)
		if fails, _ := number(check["fails"]); fails > 0 {
			path, _ := check["path"].(string)
			*out = append(*out, fmt.Sprintf("%q %g", strings.TrimPrefix(path, "::"), fails))
		}
	}
	for _, sub := range k6List(g["groups"]) {
		k6FailedChecks(sub, out)
	}
}

// k6List is a list, or a map's values in the order of its keys.
func k6List(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case map[string]any:
		out := make([]any, 0, len(l))
		for _, k := range slices.Sorted(maps.Keys(l)) {
			out = append(out, l[k])
		}
		return out
	}
	return nil
}

// k6Requests counts the requests: http_reqs made, http_req_failed's
// true values failed.
func (r *Record) k6Requests(metrics map[string]any) {
	reqs, ok := k6Value(k6Values(metrics, "http_reqs"), "count")
	if !ok {
		r.problem("has no http_reqs count: the test made no HTTP request k6 counts")
		return
	}
	n, ok := r.count("http_reqs count", reqs)
	if !ok {
		return
	}
	r.Requested = n
	if _, has := metrics["http_req_failed"]; !has {
		r.problem("has no http_req_failed metric (k6 counts failed requests from v0.31 on): which requests failed is unknown")
		return
	}
	values := k6Values(metrics, "http_req_failed")
	failedF, _ := k6Value(values, "passes")
	succeededF, _ := k6Value(values, "fails")
	failed, okF := r.count("http_req_failed passes", failedF)
	succeeded, okS := r.count("http_req_failed fails", succeededF)
	if !okF || !okS {
		return
	}
	if failed+succeeded != n {
		r.problem("http_req_failed counts %d failed and %d succeeded requests, http_reqs %d", failed, succeeded, n)
		return
	}
	r.Failed, r.Completed = failed, n-failed
}

// k6Headlines are the request and iteration rates, the run's duration
// (handleSummary's data only) and http_req_duration's statistics, in ms.
func (r *Record) k6Headlines(obj, metrics map[string]any) {
	if v, ok := k6Value(k6Values(metrics, "http_reqs"), "rate"); ok {
		r.Metrics["request_throughput"] = v
	}
	if v, ok := k6Value(k6Values(metrics, "iterations"), "rate"); ok {
		r.Metrics["iterations_per_second"] = v
	}
	if state, ok := obj["state"].(map[string]any); ok {
		if ms, ok := number(state["testRunDurationMs"]); ok {
			r.Metrics["duration"] = ms / 1000
		}
	}
	// Not min: a request's shortest time may print as 0.
	durations := k6Values(metrics, "http_req_duration")
	for _, stat := range slices.Sorted(maps.Keys(durations)) {
		v, ok := number(durations[stat])
		name, isStat := stat, slices.Contains([]string{"avg", "med", "max"}, stat)
		if p, isP := strings.CutPrefix(stat, "p("); isP {
			name, isStat = percentileName(strings.TrimSuffix(p, ")"))
		}
		if ok && isStat {
			r.Metrics["http_req_duration_"+name+"_ms"] = v
		}
	}
}
