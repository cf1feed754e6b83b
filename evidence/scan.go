package evidence

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/scenarios"
)

// The lifecycle phases of one rank's scope, in order.
const (
	inProfiling   = iota // before the first lifecycle-end line
	awaitingMode         // profiling ended; the measured lifecycle starts at the next mode line
	inMeasured           // facts count here, through the next lifecycle-end line
	afterMeasured        // a further mode line here means another attempt is in scope
)

// rankScan reads one rank's scope in a single pass, in constant memory:
// the measured lifecycle of a rank depends only on its own lines; whether
// the sets are complete is checked across ranks afterwards.
type rankScan struct {
	facts                     *RankFacts
	phase                     int
	profEnded, started, ended bool
	anotherLifecycle          bool
	err                       error
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

// minPart is the least a scope is split into for reading on several
// cores: each part's reader may read up to a block past its end, so parts
// this large keep the bytes read within 1% of the scope. (A variable, so a
// test can split small logs.)
var minPart int64 = 32 << 20

// partsPerScope is how many parts each of jobs scopes is read in: the
// cores left over when there are fewer scopes than cores.
var partsPerScope = func(jobs int) int { return max(1, runtime.GOMAXPROCS(0)/max(jobs, 1)) }

func (c *collector) ranks() {
	type job struct {
		role  *scenarios.Role
		rules []rule
		plan  *anchorPlan
		scan  *rankScan
	}
	var jobs []job
	byRole := map[string][]*rankScan{}
	for i := range c.s.Roles {
		role := &c.s.Roles[i]
		rules := c.rules(role.Name)
		if len(rules) == 0 {
			continue
		}
		plan := &anchorPlan{}
		for rank := range role.Ranks {
			rs := c.rankStatus(role.Name, rank)
			if rs == nil {
				c.e.reason(reason.New(reason.RankMissing, "%s rank %d never started", role.Name, rank).At(c.e.Arm, role.Name, rank))
				continue
			}
			sc := &rankScan{facts: &RankFacts{Role: role.Name, Rank: rank, Scope: Scope{File: rs.Log, Offset: rs.Offset, Inode: rs.Inode}}}
			jobs = append(jobs, job{role, rules, plan, sc})
			byRole[role.Name] = append(byRole[role.Name], sc)
		}
	}
	// Ranks are independent: read them on every core; a large scope of
	// fewer ranks than cores is read in parts.
	parts := partsPerScope(len(jobs))
	var wg sync.WaitGroup
	next := make(chan job)
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				c.scanRank(j.role, j.rules, j.plan, j.scan, parts)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	for i := range c.s.Roles {
		role := &c.s.Roles[i]
		var ok []*rankScan
		for _, sc := range byRole[role.Name] {
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
		c.completeness(role, ok)
		for _, sc := range ok {
			c.activationRecords(role, sc.facts)
			c.e.Ranks = append(c.e.Ranks, *sc.facts)
		}
	}
}

func (c *collector) scanRank(role *scenarios.Role, rules []rule, plan *anchorPlan, sc *rankScan, parts int) {
	ev := c.s.Evidence
	hasMode := ev.Mode != nil && ev.Mode.Role == role.Name
	hasEnd := ev.LifecycleEnd != nil && ev.LifecycleEnd.Role == role.Name
	switch {
	case ev.Profiling && hasEnd:
		sc.phase = inProfiling
	case hasMode:
		sc.phase = awaitingMode
	default:
		sc.phase, sc.started = inMeasured, true
	}
	f := sc.facts
	f.Measured = [2]int64{-1, -1}
	rel, err := c.local(f.Scope.File)
	if err != nil {
		sc.err = &StaleError{f.Scope, "the log is outside the run directory: evidence is read only from the run's own files"}
		return
	}
	read := Scope{File: rel, Offset: f.Scope.Offset, Inode: f.Scope.Inode}.In(c.root)
	shift := int64(0) // what to add to an offset read to give the original one
	if c.opts.ScopedLogs {
		read.Offset, read.Inode, shift = 0, 0, f.Scope.Offset
	}
	if why, ok := c.opts.Unreadable[f.Scope.File]; ok && c.opts.ScopedLogs {
		sc.err = &StaleError{f.Scope, why}
		return
	}
	is := func(matched []map[string]string, name string) bool {
		for i, r := range rules {
			if r.name == name && matched[i] != nil {
				return true
			}
		}
		return false
	}
	// apply moves the rank's lifecycle along a matching line, and records
	// the facts of the measured one.
	apply := func(h hit) {
		if h.counts != nil { // count-only lines: they move no phase
			if sc.phase != inMeasured {
				return
			}
			if f.Measured[0] < 0 {
				f.Measured[0] = h.off + shift
			}
			f.Measured[1] = h.last + shift
			for i, n := range h.counts {
				if n > 0 {
					c.count(f, rules[i].name, n)
				}
			}
			return
		}
		switch sc.phase {
		case inProfiling:
			if is(h.matched, "lifecycle_end") {
				sc.phase, sc.profEnded = awaitingMode, true
			}
			return
		case awaitingMode:
			if !is(h.matched, "mode") {
				return
			}
			sc.phase, sc.started = inMeasured, true
		case afterMeasured:
			if is(h.matched, "mode") {
				sc.anotherLifecycle = true
			}
			return
		}
		if f.Measured[0] < 0 {
			f.Measured[0] = h.off + shift
		}
		f.Measured[1] = h.off + shift
		for i, r := range rules {
			if h.matched[i] != nil {
				c.take(f, r.name, h.matched[i])
			}
		}
		if hasEnd && is(h.matched, "lifecycle_end") {
			sc.phase, sc.ended = afterMeasured, true
		}
	}
	var size int64
	if st, err := c.root.Lstat(rel); err == nil {
		size = st.Size() - read.Offset
	}
	parts = int(min(int64(parts), size/minPart))
	if parts <= 1 {
		srch := newSearcher(rules, plan)
		f.BytesRead, sc.err = read.ReadBlocks(func(block []byte, off int64) {
			srch.block(block, off, func(m []map[string]string, off int64) { apply(hit{off: off, matched: m}) })
		}, nil)
	} else {
		f.BytesRead, sc.err = c.scanParts(read, size, parts, rules, plan, apply)
	}
	if se, ok := sc.err.(*StaleError); ok {
		se.Scope = f.Scope // name the log as the run directory does
	}
	if !hasEnd {
		sc.ended = true
	}
}

// scanParts reads a large scope as parts on several cores: each part's
// reader searches the lines that start in it (from a byte before it, to
// see where its first line starts; through the line that crosses its end)
// and keeps its hits; the parts' hits are applied in file order, each part
// as soon as those before it are.
func (c *collector) scanParts(read Scope, size int64, parts int, rules []rule, plan *anchorPlan, apply func(hit)) (int64, error) {
	type part struct {
		hits []hit
		n    int64
		err  error
		done chan struct{}
	}
	ps := make([]*part, parts)
	bound := func(k int) int64 { return read.Offset + size*int64(k)/int64(parts) }
	for k := range ps {
		p := &part{done: make(chan struct{})}
		ps[k] = p
		go func() {
			defer close(p.done)
			from, to := bound(k), bound(k+1)
			sub := read
			if k > 0 {
				sub.Offset = from - 1
			}
			srch := newSearcher(rules, plan)
			p.n, p.err = sub.readBlocks(func(block []byte, off int64) bool {
				if k < parts-1 && off >= to {
					return false
				}
				srch.block(block, off, func(m []map[string]string, off int64) {
					if (k > 0 && off < from) || (k < parts-1 && off >= to) {
						return
					}
					countOnly := true
					for i, g := range m {
						countOnly = countOnly && (g == nil || rules[i].countOnly)
					}
					if !countOnly {
						p.hits = append(p.hits, hit{off: off, matched: slices.Clone(m)})
						return
					}
					if last := len(p.hits) - 1; last < 0 || p.hits[last].counts == nil {
						p.hits = append(p.hits, hit{off: off, counts: make([]int64, len(m))})
					}
					h := &p.hits[len(p.hits)-1]
					h.last = off
					for i, g := range m {
						if g != nil {
							h.counts[i]++
						}
					}
				})
				return true
			}, nil)
		}()
	}
	var total int64
	var first error
	for _, p := range ps {
		<-p.done
		total += p.n
		if first == nil && p.err != nil {
			first = p.err
		}
		if first == nil {
			for _, h := range p.hits {
				apply(h)
			}
		}
		p.hits = nil
	}
	return total, first
}
