package evidence

import (
	"runtime"
	"slices"
)

// minPart is the least a scope is split into for reading on several
// cores: each part's reader may read up to a block (partBlockSize) past
// its end, so parts this large keep the bytes read within 1% of the scope. (A variable, so a
// test can split small logs.)
var minPart int64 = 32 << 20

// partsPerScope is how many parts each of jobs scopes is read in: the
// cores left over when there are fewer scopes than cores.
var partsPerScope = func(jobs int) int { return max(1, runtime.GOMAXPROCS(0)/max(jobs, 1)) }

// scanParts reads a large scope of size bytes as parts on several cores:
// each part's reader keeps the hits of the lines that start in it; the
// parts' hits are applied in file order, each part as soon as those before
// it are. It returns the bytes read, and the first part's error, after
// which nothing more is applied.
func scanParts(read Scope, size int64, parts int, rules []rule, plan *anchorPlan, apply func(hit)) (int64, error) {
	ps := make([]*part, parts)
	bound := func(k int) int64 { return read.Offset + size*int64(k)/int64(parts) }
	for k := range ps {
		ps[k] = &part{from: bound(k), to: bound(k + 1), first: k == 0, last: k == parts-1, done: make(chan struct{})}
		go ps[k].scan(read, rules, plan)
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

// part is one part of a scope, [from, to), read ahead of its turn.
type part struct {
	from, to    int64
	first, last bool // the scope's first part (from is its offset), its last (read to the end)
	hitList
	n    int64 // bytes read
	err  error
	done chan struct{} // closed when the part is read
}

// scan searches the lines that start in the part: from a byte before it
// (but for the first part), to see where its first line starts, through
// the line that crosses its end (but for the last part, read to the end).
func (p *part) scan(read Scope, rules []rule, plan *anchorPlan) {
	defer close(p.done)
	if !p.first {
		read.Offset = p.from - 1
	}
	srch := newSearcher(rules, plan)
	p.n, p.err = read.readBlocks(partBlockSize, func(block []byte, off int64) bool {
		if !p.last && off >= p.to {
			return false
		}
		srch.block(block, off, func(m []map[string]string, off int64) {
			if (!p.first && off < p.from) || (!p.last && off >= p.to) {
				return
			}
			p.keep(m, off, rules)
		})
		return true
	}, nil)
}

// hitList is hits kept to be applied later, in file order.
type hitList struct{ hits []hit }

// keep keeps the matches m of the line at off: as a hit of its own when a
// rule with groups matched; else counted in the run of count-only lines
// it continues, so a part holds little, and applying a run costs a count
// per rule, not one per line.
func (p *hitList) keep(m []map[string]string, off int64, rules []rule) {
	countOnly := true
	for i, g := range m {
		countOnly = countOnly && (g == nil || rules[i].countOnly)
	}
	if !countOnly {
		p.hits = append(p.hits, hit{off: off, last: off, matched: slices.Clone(m)})
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
}
