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

// matchLine is every rule's match of line, or nil when none matched.
func matchLine(rules []rule, line []byte, matched []map[string]string) []map[string]string {
	hit := false
	for i, r := range rules {
		matched[i] = nil
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
// that start with it: one pass of IndexByte (memory speed) per anchor,
// however many rules share it.
type anchor struct {
	b       byte
	needles [][]byte
}

// planAnchors picks, for each rule's required literal, a needle: the part
// of the literal from a byte that seldom occurs in this log (judged on a
// sample), so the search seldom stops in vain. Every line holding the
// literal holds its needle too. Rules share an anchor byte where another
// pass would cost more than the extra stops (anchorBytes): a pass over a
// block costs about as much as stopping at one byte in 600 (IndexByte runs
// at memory speed; each stop compares a needle).
func planAnchors(rules []rule, sample []byte) []anchor {
	sample = sample[:min(len(sample), 64<<10)]
	var freq [256]int
	for _, b := range sample {
		freq[b]++
	}
	passCost := len(sample)/600 + 1
	lits := make([][]byte, len(rules))
	for i, r := range rules {
		lits[i] = r.literal
	}
	set := anchorBytes(lits, &freq, passCost)
	var out []anchor
	find := func(b byte) int {
		return slices.IndexFunc(out, func(a anchor) bool { return a.b == b })
	}
	for _, lit := range lits {
		best := -1
		for i, b := range lit[:needleStarts(lit)] {
			if slices.Contains(set, b) && (best < 0 || freq[b] < freq[lit[best]]) {
				best = i
			}
		}
		needle := lit[best:]
		k := find(needle[0])
		if k < 0 {
			out = append(out, anchor{b: needle[0]})
			k = len(out) - 1
		}
		if !slices.ContainsFunc(out[k].needles, func(n []byte) bool { return bytes.Equal(n, needle) }) {
			out[k].needles = append(out[k].needles, needle)
		}
	}
	return out
}

// anchorPlan is a role's anchors, planned once from the first block any
// of its ranks reads: the ranks of a role write alike.
type anchorPlan struct {
	once sync.Once
	plan []anchor
}

func (p *anchorPlan) anchors(rules []rule, sample []byte) []anchor {
	p.once.Do(func() { p.plan = planAnchors(rules, sample) })
	return p.plan
}

// lineStarts appends the start of every line of block that holds a needle
// of the anchors, unsorted.
func lineStarts(starts []int, block []byte, anchors []anchor) []int {
	for _, a := range anchors {
		for i := 0; i < len(block); {
			j := bytes.IndexByte(block[i:], a.b)
			if j < 0 {
				break
			}
			pos := i + j
			if !slices.ContainsFunc(a.needles, func(n []byte) bool { return bytes.HasPrefix(block[pos:], n) }) {
				i = pos + 1
				continue
			}
			starts = append(starts, bytes.LastIndexByte(block[:pos], '\n')+1)
			e := bytes.IndexByte(block[pos:], '\n')
			if e < 0 {
				break
			}
			i = pos + e + 1
		}
	}
	return starts
}

// searcher finds a role's matching lines in blocks of its logs.
type searcher struct {
	rules   []rule
	plan    *anchorPlan
	literal bool // every rule has a required literal: search blocks for them
	starts  []int
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
			if m := matchLine(s.rules, l, s.matched); m != nil {
				emit(m, off)
			}
		})
		return
	}
	// Search the whole block for the rules' literals, as grep tools do,
	// and visit only the lines that hold one, in file order.
	s.starts = lineStarts(s.starts[:0], block, s.plan.anchors(s.rules, block))
	slices.Sort(s.starts)
	s.starts = slices.Compact(s.starts)
	for _, ls := range s.starts {
		le := bytes.IndexByte(block[ls:], '\n')
		if le < 0 {
			le = len(block) - ls
		}
		if m := matchLine(s.rules, block[ls:ls+le], s.matched); m != nil {
			emit(m, off+int64(ls))
		}
	}
}
