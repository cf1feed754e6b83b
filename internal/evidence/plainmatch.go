package evidence

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// plainMatcher says whether a line matches a pattern that is a literal
// followed by literals and byte classes, each repeated class followed by
// bytes it cannot hold (as `vote rank=\d+ id=\d+`): a greedy walk from each
// place the literal starts is then exact, with no backtracking. It answers
// count-only rules, whose lines (one in 51 of a serving log) cost the
// regular expression's backtracker about 200 ns each; it is built only for
// patterns it decides exactly as package regexp does (plainmatch_test.go
// holds the two equal), and gives way to the regular expression where a line
// would cost it more than a few passes.
type plainMatcher struct {
	lead   []byte // the literal every match starts with
	pieces []piece
}

// piece is a literal, or a byte class repeated min to max times (max < 0:
// unbounded).
type piece struct {
	lit      []byte
	class    *[256]bool
	min, max int
}

// newPlainMatcher is the matcher of pattern, or nil when the pattern is not
// of the form it decides exactly.
func newPlainMatcher(pattern string) *plainMatcher {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	var ps []piece
	if !flatten(tree.Simplify(), &ps) || len(ps) == 0 || ps[0].lit == nil || !deterministic(ps) {
		return nil
	}
	return &plainMatcher{lead: ps[0].lit, pieces: ps[1:]}
}

// repeats are the counts, least and most (-1: unbounded), of each repeat.
var repeats = map[syntax.Op][2]int{syntax.OpStar: {0, -1}, syntax.OpPlus: {1, -1}, syntax.OpQuest: {0, 1}}

// flatten appends the pieces of n, a concatenation of literals, captures
// (whose groups a count-only rule never needs) and repeated classes; false
// when n holds anything else.
func flatten(n *syntax.Regexp, ps *[]piece) bool {
	switch n.Op {
	case syntax.OpConcat:
		for _, sub := range n.Sub {
			if !flatten(sub, ps) {
				return false
			}
		}
		return true
	case syntax.OpCapture:
		return flatten(n.Sub[0], ps)
	case syntax.OpEmptyMatch:
		return true
	case syntax.OpLiteral:
		if n.Flags&syntax.FoldCase != 0 {
			return false
		}
		if slices.Contains(n.Rune, utf8.RuneError) {
			return false // package regexp reads an invalid byte as this rune
		}
		lit := []byte(string(n.Rune))
		if k := len(*ps) - 1; k >= 0 && (*ps)[k].lit != nil {
			(*ps)[k].lit = append((*ps)[k].lit, lit...)
		} else {
			*ps = append(*ps, piece{lit: lit, min: 1, max: 1})
		}
		return true
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		p, ok := classPiece(n.Sub[0])
		if !ok {
			return false
		}
		p.min, p.max = repeats[n.Op][0], repeats[n.Op][1]
		if p.max >= 0 && p.class['\x80'] {
			return false // a bounded count of runes is not one of bytes
		}
		*ps = append(*ps, p)
		return true
	}
	p, ok := classPiece(n)
	if !ok || p.class['\x80'] {
		return false
	}
	*ps = append(*ps, p)
	return true
}

// classPiece is n as a class of bytes matched once: an ASCII class, or one
// holding every rune from U+0080 on (as `\S`, `.`, `[^,]`), whose runes are
// then bytes it holds too, however they are encoded, so a repeat of it spans
// the same bytes as package regexp's repeat of runes.
func classPiece(n *syntax.Regexp) (piece, bool) {
	var ranges []rune
	switch n.Op {
	case syntax.OpCharClass:
		ranges = n.Rune
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.OpAnyChar:
		ranges = []rune{0, unicode.MaxRune}
	default:
		return piece{}, false
	}
	var class [256]bool
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if hi >= 0x80 && (lo > 0x80 || hi < unicode.MaxRune) {
			return piece{}, false // holds some runes above ASCII, not all
		}
		for b := lo; b <= min(hi, 0xff); b++ {
			class[b] = true // above 0x7f: every rune from U+0080 on
		}
	}
	return piece{class: &class, min: 1, max: 1}, true
}

// deterministic says whether each class repeated a varying number of times
// holds no byte that what follows it can start with: its greedy repeat is
// then the only one that can lead to a match.
func deterministic(ps []piece) bool {
	for i, p := range ps {
		if p.class == nil || p.min == p.max {
			continue
		}
		for _, next := range ps[i+1:] {
			if next.lit != nil {
				if p.class[next.lit[0]] {
					return false
				}
				break
			}
			for b := range 256 {
				if next.class[b] && p.class[b] {
					return false
				}
			}
			if next.min > 0 {
				break
			}
		}
	}
	return true
}

// match is whether line matches, and false for done when the line would
// cost more than a few passes over it (many starts of the lead literal): the
// regular expression decides then.
func (m *plainMatcher) match(line []byte) (matched, done bool) {
	budget := 4*len(line) + 256
	for from := 0; ; {
		i := bytes.Index(line[from:], m.lead)
		if i < 0 {
			return false, true
		}
		start := from + i + len(m.lead)
		end, ok := m.walk(line, start)
		if ok {
			return true, true
		}
		budget -= end - from + 1
		if budget < 0 {
			return false, false
		}
		from += i + 1
	}
}

// walk matches the pieces from line[at:]; it returns where it stopped.
func (m *plainMatcher) walk(line []byte, at int) (int, bool) {
	for _, p := range m.pieces {
		if p.lit != nil {
			if !bytes.HasPrefix(line[at:], p.lit) {
				return at, false
			}
			at += len(p.lit)
			continue
		}
		n := 0
		for at < len(line) && (p.max < 0 || n < p.max) && p.class[line[at]] {
			at++
			n++
		}
		if n < p.min {
			return at, false
		}
	}
	return at, true
}
