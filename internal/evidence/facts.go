package evidence

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/scenarios"
)

// rules lists every rule that reads role's logs, sorted by name.
func (c *collector) rules(role string) []rule {
	var out []rule
	for _, lr := range c.s.RulesFor(role) {
		r := c.opts.Rules.rule(lr.Name, lr.Pattern)
		r.countOnly = lr.CountOnly
		out = append(out, r)
	}
	return out
}

// take records a match of the measured lifecycle as a fact; the last match
// of a rule wins, except the mode, which is the lifecycle's first line.
func (c *collector) take(f *RankFacts, rule string, named map[string]string) {
	switch {
	case rule == "mode":
		if f.Mode == nil {
			f.Mode = map[string]string{}
			for k, v := range named {
				if k != "rank" {
					f.Mode[k] = v
				}
			}
		}
	case rule == "activation":
		n, _ := strconv.ParseUint(named["count"], 10, 64)
		f.Activation = &Activation{Count: n, Digest: named["digest"], Algorithm: named["algorithm"]}
	case strings.HasPrefix(rule, "counter:"):
		name := strings.TrimPrefix(rule, "counter:")
		if f.Counters == nil {
			f.Counters = map[string]int64{}
		}
		if group := c.s.Evidence.Counters[name].Value; group != "" {
			v, err := strconv.ParseInt(named[group], 10, 64)
			if err == nil {
				f.Counters[name] = v
			}
		} else {
			f.Counters[name]++
		}
	case strings.HasPrefix(rule, "fact:"):
		if f.Facts == nil {
			f.Facts = map[string]map[string]string{}
		}
		f.Facts[strings.TrimPrefix(rule, "fact:")] = named
	}
}

// count adds n matches of a count-only counter rule.
func (c *collector) count(f *RankFacts, rule string, n int64) {
	if f.Counters == nil {
		f.Counters = map[string]int64{}
	}
	f.Counters[strings.TrimPrefix(rule, "counter:")] += n
}

// activationRecords notes the rank's per-prompt records file, if any.
func (c *collector) activationRecords(role *scenarios.Role, f *RankFacts) {
	a := c.s.Evidence.Activation
	if a == nil || a.Role != role.Name || a.Records == "" {
		return
	}
	expanded, err := scenarios.Expand(a.Records, c.data(role, f.Rank))
	if err != nil {
		return
	}
	rel, err := c.local(expanded)
	if err != nil {
		return
	}
	if c.exists(rel) {
		f.ActivationRecords = rel
		c.input(rel)
	}
}
