package evidence

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestAnchorsFewestPasses: searched a pass per byte, the rules of a serving
// log whose first literal has a byte of its own ('q') and whose others
// share one ('m') take two passes, whatever their order; chosen rule by
// rule, the second rule's rarest byte ('y', in no line of the sample) took
// a third.
func TestAnchorsFewestPasses(t *testing.T) {
	searchWide(t, false)
	sample, rules := servingSample(), servingRules()
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}} {
		var rs []rule
		for _, i := range order {
			rs = append(rs, rules[i])
		}
		anchors := planAnchors(rs, sample)
		if len(anchors) != 2 {
			t.Fatalf("order %v: %d passes %v, want 2", order, len(anchors), anchors)
		}
		for _, r := range rs {
			if !hasNeedle(anchors, r.literal) {
				t.Fatalf("order %v: no needle of %q in %v: its lines would be missed", order, r.literal, anchors)
			}
		}
	}
}

// TestAnchorsFewestStops: searched in one pass, each rule's needle starts
// at the rarest byte of its literal, a byte more costing no pass.
func TestAnchorsFewestStops(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2: the set is searched a pass per byte")
	}
	sample, rules := servingSample(), servingRules()
	var freq [256]int
	for _, b := range sample {
		freq[b]++
	}
	anchors := planAnchors(rules, sample)
	for i, r := range rules {
		rarest := rarest(r.literal[:needleStarts(r.literal)], &freq)
		if !slices.ContainsFunc(anchors, func(a anchor) bool {
			return slices.ContainsFunc(a.needles, func(n needle) bool { return n.rules&ruleBit(i) != 0 && freq[n.text[0]] == freq[rarest] })
		}) {
			t.Fatalf("%q: no needle from a byte as rare as %q in %v", r.literal, rarest, anchors)
		}
	}
}

// servingSample is 64 KiB of a serving log: scheduler lines, and a vote
// line in 51.
func servingSample() []byte {
	var sample bytes.Buffer
	for i := 0; sample.Len() < 64<<10; i++ {
		fmt.Fprintf(&sample, "2026-11-30T07:00:00.%06dZ INFO scheduler step=%d running=32 kv_cache_usage=0.%02d prefill_tokens=%d\n", i, i, i%100, i%4096)
		if i%50 == 0 {
			fmt.Fprintf(&sample, "DEBUG terminal_vote rank=0 id=%d\n", i)
		}
	}
	return sample.Bytes()
}

// servingRules are the rules of a serving scenario.
func servingRules() []rule {
	return []rule{
		newRule("activation", `activation_sequence rank=(?P<rank>\d+) count=(?P<count>\d+)`),
		newRule("commits", `shutdown_summary rank=(?P<rank>\d+) .*terminal_commits=(?P<n>\d+)`),
		newRule("votes", `terminal_vote rank=(?P<rank>\d+) id=\d+`),
		newRule("end", `shutdown_summary rank=(?P<rank>\d+)`),
		newRule("mode", `mode rank=(?P<rank>\d+) terminal=(?P<T>\d)`),
	}
}

// hasNeedle says whether an anchor's needle is a part of lit.
func hasNeedle(anchors []anchor, lit []byte) bool {
	for _, a := range anchors {
		for _, n := range a.needles {
			if n.text[0] == a.b && bytes.HasSuffix(lit, n.text) {
				return true
			}
		}
	}
	return false
}

// A needle may start with a newline (a pattern's literal can hold one):
// a candidate line's own newline is then an anchor byte, and no line is
// visited twice, whether the set is searched wide or byte by byte.
func TestCandidateLinesVisitEachLineOnce(t *testing.T) {
	rules := []rule{newRule("nl", `\nzzzz`), newRule("mode", `mode rank=(?P<rank>\d+)`)}
	block := []byte("mode rank=1\nzzzz\nmode rank=2 x\n\nzzzz mode rank=3\nmode rank=4")
	for _, wide := range []bool{false, true} {
		searchWide(t, wide)
		plan := (&anchorPlan{}).anchors(rules, bytes.Repeat([]byte("z"), 100))
		var starts []int
		candidateLines(block, plan, newByteSet(plan.set), func(start, end int, _ uint64) { starts = append(starts, start) })
		if !slices.IsSorted(starts) || len(slices.Compact(slices.Clone(starts))) != len(starts) || len(starts) < 4 {
			t.Fatalf("wide %v, anchors %v: lines visited at %v, want each of the 4 mode lines once, in order", wide, plan.plan, starts)
		}
	}
}

// Rules from the 64th on share the last bit of a line's mask of rules: a
// line holding the needle of any of them is checked for all of them.
func TestBlockSearchOfManyRules(t *testing.T) {
	var rules []rule
	for i := range 70 {
		rules = append(rules, newRule(fmt.Sprintf("fact:t%d", i), fmt.Sprintf(`tag%02d=(?P<v>\d)`, i)))
	}
	var block bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&block, "noise %d tag%02d=%d tag%02d=%d\n", i, i%70, i%10, (i*7)%70, i%3)
	}
	checkBlockSearch(t, rules, block.Bytes(), block.Bytes())
}
