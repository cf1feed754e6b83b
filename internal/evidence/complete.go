package evidence

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// completeness applies the cross-rank part of the phase rule: every
// expected rank must have ended its profiling lifecycle, started and ended
// its measured one, and hold nothing after it.
func (c *collector) completeness(role *scenarios.Role, scans []*rankScan) {
	ev := c.s.Evidence
	if ev.Profiling && ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == role.Name {
		if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.phases.profEnded }); m != "" {
			c.e.reason(reason.New(reason.PhaseIncomplete, "the profiling lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
			return
		}
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.phases.started }); m != "" {
		after := ""
		if ev.Profiling {
			after = " after the profiling lifecycle"
		}
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never started on rank(s) %s (no mode line%s)", role.Name, m, after))
		return
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return !sc.phases.ended }); m != "" {
		c.e.reason(reason.New(reason.PhaseIncomplete, "the measured lifecycle of role %s never ended on rank(s) %s (no lifecycle-end line)", role.Name, m))
	}
	if m := ranksWhere(scans, func(sc *rankScan) bool { return sc.phases.anotherLifecycle }); m != "" {
		c.e.reason(reason.New(reason.StaleEvidence, "the scoped logs of role %s, rank(s) %s, hold another lifecycle after the measured one: the scope spans more than one attempt", role.Name, m))
	}
}

func ranksWhere(scans []*rankScan, bad func(*rankScan) bool) string {
	var out []string
	for _, sc := range scans {
		if bad(sc) {
			out = append(out, strconv.Itoa(sc.facts.Rank))
		}
	}
	return strings.Join(out, ", ")
}
