package evidence

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"sync"
)

// rule is one pattern applied to a role's lines, with a literal every
// match must contain, so most lines are rejected by a fast substring search
// before the regular expression runs.
type rule struct {
	name    string
	re      *regexp.Regexp
	literal []byte
	// countOnly rules (a counter without a value group) need no groups:
	// whether a line matches is all, found without building them.
	countOnly bool
	// plain decides lines without the regular expression, for patterns of
	// literals and byte classes (plainmatch.go); nil for others.
	plain *plainMatcher
}

// matchedOnly is the groups of a count-only rule's match: none, but not nil.
var matchedOnly = map[string]string{}

func newRule(name, pattern string) rule {
	re := regexp.MustCompile(pattern)
	return rule{name: name, re: re, literal: requiredLiteral(pattern), plain: newPlainMatcher(pattern)}
}

// requiredLiteral is the longest literal a match of pattern must contain
// (a literal of its top-level concatenation), or nil.
func requiredLiteral(pattern string) []byte {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	tree = tree.Simplify()
	var best []rune
	consider := func(n *syntax.Regexp) {
		if n.Op == syntax.OpLiteral && n.Flags&syntax.FoldCase == 0 && len(n.Rune) > len(best) {
			best = n.Rune
		}
	}
	switch tree.Op {
	case syntax.OpConcat:
		for _, sub := range tree.Sub {
			consider(sub)
		}
	default:
		consider(tree)
	}
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// matchLine is the match of line of every rule in the mask (ruleBit), or
// nil when none matched.
func matchLine(rules []rule, line []byte, matched []map[string]string, mask uint64) []map[string]string {
	hit := false
	for i, r := range rules {
		matched[i] = nil
		if mask&ruleBit(i) == 0 {
			continue
		}
		known, ok := r.decide(line)
		if known && !ok {
			continue
		}
		if r.countOnly {
			if known || r.re.Match(line) {
				matched[i], hit = matchedOnly, true
			}
			continue
		}
		m := r.re.FindSubmatch(line)
		if m == nil {
			continue
		}
		named := map[string]string{}
		for j, g := range r.re.SubexpNames() {
			if g != "" && m[j] != nil {
				named[g] = string(m[j])
			}
		}
		matched[i], hit = named, true
	}
	if !hit {
		return nil
	}
	return matched
}

// decide is whether line matches r when that is known without the regular
// expression: known false when a fast test cannot tell.
func (r *rule) decide(line []byte) (known, ok bool) {
	if r.plain != nil {
		ok, done := r.plain.match(line)
		return done, ok
	}
	if r.literal != nil && !bytes.Contains(line, r.literal) {
		return true, false
	}
	return false, false
}

// anchor is one byte the block search stops at, and the rule needles
// that start with it: every anchor's byte is found in one pass (byteSet),
// however many rules share it.
type anchor struct {
	b       byte
	needles []needle
}

// needle is the part of a rule's literal the search looks for, and the
// rules (ruleBit) whose needle it is: a line holding no needle of a rule
// cannot match it.
type needle struct {
	text  []byte
	rules uint64
}

// ruleBit is rule i's bit in a mask of rules; rules from the 64th on share
// the last bit, so a mask holds every rule it must.
func ruleBit(i int) uint64 { return 1 << min(i, 63) }

// allRules is the mask of every rule.
const allRules = ^uint64(0)

// planAnchors picks, for each rule's required literal, a needle: the part
// of the literal from a byte that seldom occurs in this log (judged on a
// sample), so the search seldom stops in vain. Every line holding the
// literal holds its needle too. Rules share an anchor byte where another
// byte would cost more than the extra stops (anchorBytes): searched a pass
// per byte, a pass over a block costs about as much as stopping at one
// byte in 600 (IndexByte runs at memory speed; each stop compares a
// needle); searched in one pass (wideSearch), a byte more costs nothing
// but its stops, so such a set is taken when the one of fewest stops is.
func planAnchors(rules []rule, sample []byte) []anchor {
	sample = sample[:min(len(sample), 64<<10)]
	var freq [256]int
	for _, b := range sample {
		freq[b]++
	}
	lits := make([][]byte, len(rules))
	for i, r := range rules {
		lits[i] = r.literal
	}
	set := anchorBytes(lits, &freq, 1) // of sets as cheap in stops, the one of fewer bytes
	if !wideSearch(set) {
		set = anchorBytes(lits, &freq, len(sample)/600+1)
	}
	var out []anchor
	find := func(b byte) int {
		return slices.IndexFunc(out, func(a anchor) bool { return a.b == b })
	}
	for r, lit := range lits {
		best := -1
		for i, b := range lit[:needleStarts(lit)] {
			if slices.Contains(set, b) && (best < 0 || freq[b] < freq[lit[best]]) {
				best = i
			}
		}
		text := lit[best:]
		k := find(text[0])
		if k < 0 {
			out = append(out, anchor{b: text[0]})
			k = len(out) - 1
		}
		n := slices.IndexFunc(out[k].needles, func(n needle) bool { return bytes.Equal(n.text, text) })
		if n < 0 {
			out[k].needles = append(out[k].needles, needle{text: text})
			n = len(out[k].needles) - 1
		}
		out[k].needles[n].rules |= ruleBit(r)
	}
	return out
}

// anchorPlan is a role's anchors, planned once from the first block any
// of its ranks reads: the ranks of a role write alike.
type anchorPlan struct {
	once    sync.Once
	plan    []anchor
	set     []byte     // the anchors' bytes
	anchorB [256]uint8 // by byte of set: its anchor's index in plan
}

func (p *anchorPlan) anchors(rules []rule, sample []byte) *anchorPlan {
	p.once.Do(func() {
		p.plan = planAnchors(rules, sample)
		for i, a := range p.plan {
			p.set = append(p.set, a.b)
			p.anchorB[a.b] = uint8(i)
		}
	})
	return p
}

// needlesAt is the mask of the rules whose needles start at block[pos],
// a byte of the set.
func (p *anchorPlan) needlesAt(block []byte, pos int) uint64 {
	var m uint64
	for _, n := range p.plan[p.anchorB[block[pos]]].needles {
		if bytes.HasPrefix(block[pos:], n.text) {
			m |= n.rules
		}
	}
	return m
}

// candidateLines calls visit, in file order, with the start and end (its
// newline or the block's end) of every line of block that holds a needle,
// and the mask of the rules whose needles it holds: the anchors' bytes are
// found in one pass, and every one of them within a line that holds a
// needle is checked, so the mask misses no rule whose literal the line
// holds. The first place found past a line is where the search goes on.
func candidateLines(block []byte, p *anchorPlan, set *byteSet, visit func(start, end int, rules uint64)) {
	set.reset(block)
	for pos := set.index(0); pos >= 0; {
		m := p.needlesAt(block, pos)
		if m == 0 {
			pos = set.index(pos + 1)
			continue
		}
		end := len(block)
		if e := bytes.IndexByte(block[pos:], '\n'); e >= 0 {
			end = pos + e
		}
		next := set.index(pos + 1)
		for ; next >= 0 && next < end; next = set.index(next + 1) {
			m |= p.needlesAt(block, next)
		}
		visit(bytes.LastIndexByte(block[:pos], '\n')+1, end, m)
		if next == end { // the line's newline, an anchor byte: no line starts there
			next = set.index(end + 1)
		}
		pos = next
	}
}

// searcher finds a role's matching lines in blocks of its logs.
type searcher struct {
	rules   []rule
	plan    *anchorPlan
	literal bool     // every rule has a required literal: search blocks for them
	set     *byteSet // the plan's bytes, made with the first block
	matched []map[string]string
}

func newSearcher(rules []rule, plan *anchorPlan) *searcher {
	s := &searcher{rules: rules, plan: plan, literal: true, matched: make([]map[string]string, len(rules))}
	for _, r := range rules {
		s.literal = s.literal && r.literal != nil
	}
	return s
}

// block calls emit with every matching line of block, in file order; the
// matches are valid during the call.
func (s *searcher) block(block []byte, off int64, emit func(matched []map[string]string, off int64)) {
	if !s.literal {
		eachLine(block, off, func(l []byte, off int64) {
			if m := matchLine(s.rules, l, s.matched, allRules); m != nil {
				emit(m, off)
			}
		})
		return
	}
	// Search the whole block for the rules' literals, as grep tools do,
	// and visit only the lines that hold one, in file order, checking only
	// the rules whose needles each holds.
	plan := s.plan.anchors(s.rules, block)
	if s.set == nil {
		s.set = newByteSet(plan.set)
	}
	candidateLines(block, plan, s.set, func(start, end int, rules uint64) {
		if m := matchLine(s.rules, block[start:end], s.matched, rules); m != nil {
			emit(m, off+int64(start))
		}
	})
}
