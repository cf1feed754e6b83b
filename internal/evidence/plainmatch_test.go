package evidence

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// plainPatterns are patterns the plain matcher decides (true) or must
// leave to the regular expression (false).
var plainPatterns = map[string]bool{
	`terminal_vote rank=(?P<rank>\d+) id=\d+`:       true,
	`vote rank=\d+ id=\d*`:                          true,
	`mode rank=(?P<rank>\d+) phase=\S+ t=(?P<T>\d)`: true,
	`digest=[0-9a-f]+ alg=\S+`:                      true,
	`key=[^,]*,v=\d?x`:                              true,
	`a.b`:                                           false, // one rune of several bytes
	`shutdown rank=\d+ .*commits=(?P<n>\d+)`:        false, // .* holds what follows it
	`x\d+\d`:                                        false,
	`^vote \d+`:                                     false,
	`(?i)vote \d+`:                                  false,
	`vote (ab|c)`:                                   false,
	`\d+ vote`:                                      false, // no leading literal
	`vote [^é]+x`:                                   false,
}

// TestPlainMatcherAgreesWithRegexp holds the plain matcher to package
// regexp on lines of the bytes its patterns turn on, ASCII and not, valid
// UTF-8 and not.
func TestPlainMatcherAgreesWithRegexp(t *testing.T) {
	pieces := []string{"vote rank=", "terminal_", " id=", "mode rank=", " phase=", " t=", "digest=", " alg=", "key=", ",v=",
		"0", "7", "12", "ab", "f", "x", " ", "\t", ",", "é", "\xff", "\xe2\x82", "€", "a", "b", "-",
		"vote rank=1 id=2", "mode rank=0 phase=\xffé t=1", "digest=0a alg=s", "key=a,v=x"}
	rng := rand.New(rand.NewPCG(1, 2))
	for pattern, plain := range plainPatterns {
		m := newPlainMatcher(pattern)
		if (m != nil) != plain {
			t.Fatalf("%q: plain matcher built %v, want %v", pattern, m != nil, plain)
		}
		if m == nil {
			continue
		}
		re := regexp.MustCompile(pattern)
		matches := 0
		for range 20000 {
			var line []byte
			for range rng.IntN(12) {
				line = append(line, pieces[rng.IntN(len(pieces))]...)
			}
			got, done := m.match(line)
			if !done {
				continue
			}
			if want := re.Match(line); got != want {
				t.Fatalf("%q on %q: plain matcher says %v, regexp %v", pattern, line, got, want)
			}
			if got {
				matches++
			}
		}
		if matches == 0 {
			t.Fatalf("%q: no line matched: the comparison tested nothing", pattern)
		}
	}
}

// TestPlainMatcherGivesWay checks that a line with many starts of the
// leading literal is left to the regular expression, so no line costs the
// plain matcher more than a few passes.
func TestPlainMatcherGivesWay(t *testing.T) {
	m := newPlainMatcher(`a[^x]*x`)
	line := make([]byte, 4096)
	for i := range line {
		line[i] = 'a'
	}
	if _, done := m.match(line); done {
		t.Fatal("4,096 starts of the literal, each walking to the end, were decided: no bound on a line's cost")
	}
	if ok, done := m.match([]byte("aaax")); !done || !ok {
		t.Fatalf("a short line: %v %v, want decided and matched", ok, done)
	}
}

func FuzzPlainMatcher(f *testing.F) {
	f.Add(`vote rank=\d+ id=\d+`, []byte("DEBUG vote rank=3 id=12"))
	f.Add(`k=\S+ v=[0-9a-f]*x`, []byte("k=é\xff v=0ax"))
	f.Fuzz(func(t *testing.T, pattern string, line []byte) {
		re, err := regexp.Compile(pattern)
		m := newPlainMatcher(pattern)
		if err != nil || m == nil {
			return
		}
		if got, done := m.match(line); done && got != re.Match(line) {
			t.Fatalf("%q on %q: plain matcher says %v, regexp %v", pattern, line, got, !got)
		}
	})
}
