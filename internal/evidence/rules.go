package evidence

import (
	"regexp"
	"sync"
)

// Rules are evidence rules' patterns compiled once and shared by many
// derivations: a verifier of thousands of bundles of one scenario derives
// each run's evidence again, and compiling the same patterns for each
// (the regular expression, its required literal, its plain matcher) was
// a twentieth of that. A pattern is held under its exact text: a rule
// changed in one bundle's scenario is another pattern, compiled on its
// own. What it holds is only read after it is compiled (the scan shares a
// rule between its parts' goroutines already), so Rules is safe for
// concurrent use. A nil *Rules compiles each rule for its derivation.
type Rules struct {
	mu       sync.RWMutex
	compiled map[string]compiledPattern
}

// compiledPattern is what newRule makes of a pattern.
type compiledPattern struct {
	re      *regexp.Regexp
	literal []byte
	plain   *plainMatcher
}

// maxRulePatterns bounds the patterns a Rules holds: a comparison's
// scenarios have a few dozen between them; beyond it, a pattern is
// compiled for its derivation alone.
const maxRulePatterns = 1024

// NewRules is an empty Rules.
func NewRules() *Rules { return &Rules{compiled: map[string]compiledPattern{}} }

// rule is the rule name of pattern, compiled once.
func (rs *Rules) rule(name, pattern string) rule {
	if rs == nil {
		return newRule(name, pattern)
	}
	rs.mu.RLock()
	p, ok := rs.compiled[pattern]
	rs.mu.RUnlock()
	if !ok {
		r := newRule(name, pattern)
		p = compiledPattern{re: r.re, literal: r.literal, plain: r.plain}
		rs.mu.Lock()
		if len(rs.compiled) < maxRulePatterns {
			rs.compiled[pattern] = p
		}
		rs.mu.Unlock()
	}
	return rule{name: name, re: p.re, literal: p.literal, plain: p.plain}
}
