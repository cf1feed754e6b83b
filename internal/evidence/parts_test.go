package evidence

import (
	"reflect"
	"testing"
)

// A part keeps a line a rule with groups matched as a hit of its own, and
// a run of lines only count-only rules matched as one hit, counting per
// rule, from its first line through its last.
func TestPartKeepsCountRunsAsOneHit(t *testing.T) {
	rules := []rule{newRule("counter:a", `a`), newRule("fact:x", `x=(?P<v>\d)`), newRule("counter:b", `b`)}
	rules[0].countOnly, rules[2].countOnly = true, true
	x := map[string]string{"v": "1"}
	var p part
	p.keep([]map[string]string{matchedOnly, nil, nil}, 0, rules)
	p.keep([]map[string]string{matchedOnly, nil, matchedOnly}, 10, rules)
	p.keep([]map[string]string{nil, nil, matchedOnly}, 20, rules)
	p.keep([]map[string]string{matchedOnly, x, nil}, 30, rules)
	p.keep([]map[string]string{nil, nil, matchedOnly}, 40, rules)
	want := []hit{
		{off: 0, last: 20, counts: []int64{2, 0, 2}},
		{off: 30, last: 30, matched: []map[string]string{matchedOnly, x, nil}},
		{off: 40, last: 40, counts: []int64{0, 0, 1}},
	}
	if !reflect.DeepEqual(p.hits, want) {
		t.Fatalf("hits %+v\nwant %+v", p.hits, want)
	}
}
