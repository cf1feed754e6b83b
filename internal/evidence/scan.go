package evidence

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/parallel"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// rankScan is the reading of one rank's scope, in a single pass: its facts,
// its lifecycle, and the error that stopped the reading. Whether the sets
// of ranks are complete is checked across ranks afterwards.
type rankScan struct {
	role   *scenarios.Role
	rules  []rule
	plan   *anchorPlan // the role's: its ranks write alike
	facts  *RankFacts
	phases phases
	err    error
}

// hit is a line that rules matched, at off (as read): each rule's groups
// (nil: no match; matchedOnly: a count-only match). A run of lines that
// only count-only rules matched is one hit with counts per rule, from off
// through last, so a part of a scope searched ahead of its turn holds
// little.
type hit struct {
	off, last int64
	matched   []map[string]string
	counts    []int64
}

// ranks reads every rank's scope and records the facts of each role whose
// ranks' lifecycles are complete.
func (c *collector) ranks() {
	byRole := c.rankScans()
	var all []*rankScan
	for _, role := range c.logRoles() {
		all = append(all, byRole[role.Name]...)
	}
	c.scanAll(all)
	for _, role := range c.logRoles() {
		ok := c.readable(byRole[role.Name])
		c.completeness(role, ok)
		for _, sc := range ok {
			c.activationRecords(role, sc.facts)
			c.e.Ranks = append(c.e.Ranks, *sc.facts)
		}
	}
}

// rankScans is, by role, a scan of each rank that started, for every role
// whose logs rules read; a rank that never started is rank-missing.
func (c *collector) rankScans() map[string][]*rankScan {
	byRole := map[string][]*rankScan{}
	for _, role := range c.logRoles() {
		rules := c.rules(role.Name)
		if len(rules) == 0 {
			continue
		}
		plan := &anchorPlan{}
		for rank := range role.Ranks {
			rs := c.rankStatus(role.Name, rank)
			if rs == nil {
				c.e.reason(reason.New(reason.RankMissing, "%s %s %d never started", role.Name, rankWord(role), rank).At(c.e.Arm, role.Name, rank))
				continue
			}
			facts := &RankFacts{Role: role.Name, Rank: rank, Scope: Scope{File: rs.Log, Offset: rs.Offset, Inode: rs.Inode}}
			byRole[role.Name] = append(byRole[role.Name], &rankScan{role: role, rules: rules, plan: plan, facts: facts})
		}
	}
	return byRole
}

// logRoles are the roles whose logs evidence rules read: the scenario's,
// then each of a run's hook lists that has hooks, its hooks as its ranks.
func (c *collector) logRoles() []*scenarios.Role {
	roles := make([]*scenarios.Role, 0, len(c.s.Roles)+len(scenarios.RunHooks))
	for i := range c.s.Roles {
		roles = append(roles, &c.s.Roles[i])
	}
	for _, kind := range scenarios.RunHooks {
		if len(c.s.Hooks(kind)) > 0 {
			roles = append(roles, c.s.HookRole(kind))
		}
	}
	return roles
}

// rankWord is what a rank of role is called: a hook of a hook list.
func rankWord(role *scenarios.Role) string {
	if slices.Contains(scenarios.RunHooks, role.Name) {
		return "hook"
	}
	return "rank"
}

// scanAll reads the scans' scopes. Ranks are independent: they are read
// on every core; a large scope of fewer ranks than cores is read in parts.
func (c *collector) scanAll(scans []*rankScan) {
	parts := partsPerScope(len(scans))
	parallel.Each(len(scans), func(i int) { c.scanRank(scans[i], parts) })
}

// readable is the scans whose scopes were read; each other one is stale
// evidence, naming its log as the run directory does.
func (c *collector) readable(scans []*rankScan) []*rankScan {
	var ok []*rankScan
	for _, sc := range scans {
		if sc.err == nil {
			ok = append(ok, sc)
			continue
		}
		f := sc.facts
		if se, isStale := sc.err.(*StaleError); isStale {
			c.e.reason(se.Reason().At(c.e.Arm, f.Role, f.Rank))
		} else {
			c.e.reason(reason.New(reason.StaleEvidence, "reading %s: %v", f.Scope.File, strings.ReplaceAll(sc.err.Error(), c.dir+string(filepath.Separator), "")).At(c.e.Arm, f.Role, f.Rank))
		}
	}
	return ok
}

// scanRank reads one rank's scope, in parts when it is large and there are
// cores to spare, and takes the facts of its measured lifecycle.
func (c *collector) scanRank(sc *rankScan, parts int) {
	ev := c.s.Evidence
	hasMode := ev.Mode.Of(sc.role.Name) != nil
	hasEnd := ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == sc.role.Name
	sc.phases = newPhases(ev.Profiling, hasMode, hasEnd)
	f := sc.facts
	f.Measured = [2]int64{-1, -1}
	read, shift, err := c.scopeToRead(f.Scope)
	if err != nil {
		sc.err = err
		return
	}
	t := &factTaker{c: c, facts: f, rules: sc.rules, mode: ruleIndex(sc.rules, "mode"), end: ruleIndex(sc.rules, "lifecycle_end"), shift: shift, phases: &sc.phases}
	f.BytesRead, sc.err = c.search(read, sc.rules, sc.plan, parts, t.apply)
	if se, ok := sc.err.(*StaleError); ok {
		se.Scope = f.Scope // name the log as the run directory does
	}
	sc.phases.eof()
}

// scopeToRead is where to read a rank's scope as the run recorded it
// (the log relative to the run directory, read through its root), and what
// to add to an offset read to give the original one: with ScopedLogs, the
// log holds only its scope.
func (c *collector) scopeToRead(s Scope) (Scope, int64, error) {
	rel, err := c.local(s.File)
	if err != nil {
		return Scope{}, 0, &StaleError{s, "the log is outside the run directory: evidence is read only from the run's own files"}
	}
	read := Scope{File: rel, Offset: s.Offset, Inode: s.Inode}.In(c.root)
	if held, ok := c.held(rel); ok {
		read = read.Held(held)
	}
	if !c.opts.ScopedLogs {
		return read, 0, nil
	}
	if why, ok := c.opts.Unreadable[s.File]; ok {
		return Scope{}, 0, &StaleError{s, why}
	}
	read.Offset, read.Inode = 0, 0
	return read, s.Offset, nil
}

// search reads the scope and applies its hits in file order: in parts
// (scanParts) when it holds at least minPart bytes for each; else a block
// at a time, its runs of count-only lines kept as one hit each (hitList).
func (c *collector) search(read Scope, rules []rule, plan *anchorPlan, parts int, apply func(hit)) (int64, error) {
	size := c.size(read) - read.Offset
	parts = int(min(int64(parts), size/minPart))
	if parts > 1 {
		return scanParts(read, size, parts, rules, plan, apply)
	}
	srch := newSearcher(rules, plan)
	var kept hitList
	return read.ReadBlocks(func(block []byte, off int64) {
		srch.block(block, off, func(m []map[string]string, off int64) { kept.keep(m, off, rules) })
		for _, h := range kept.hits {
			apply(h)
		}
		kept.hits = kept.hits[:0]
	}, nil)
}

// factTaker moves a rank's lifecycle along its hits, in file order, and
// takes the facts of the measured lifecycle.
type factTaker struct {
	c         *collector
	facts     *RankFacts
	rules     []rule
	mode, end int   // the indexes of the mode and lifecycle-end rules; -1: none
	shift     int64 // what to add to an offset read to give the original one
	phases    *phases
}

// ruleIndex is the index of the rule named name, or -1.
func ruleIndex(rules []rule, name string) int {
	for i, r := range rules {
		if r.name == name {
			return i
		}
	}
	return -1
}

func (t *factTaker) apply(h hit) {
	var l phaseLine // count-only lines move no phase
	if h.counts == nil {
		l = phaseLine{mode: t.mode >= 0 && h.matched[t.mode] != nil, end: t.end >= 0 && h.matched[t.end] != nil}
	}
	if !t.phases.step(l) {
		return
	}
	f := t.facts
	if f.Measured[0] < 0 {
		f.Measured[0] = h.off + t.shift
	}
	f.Measured[1] = h.last + t.shift
	for i, r := range t.rules {
		switch {
		case h.counts != nil && h.counts[i] > 0:
			t.c.count(f, r.name, h.counts[i])
		case h.counts == nil && h.matched[i] != nil:
			t.c.take(f, r.name, h.matched[i])
		}
	}
}
