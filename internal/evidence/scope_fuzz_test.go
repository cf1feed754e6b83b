package evidence

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"testing"
)

// FuzzScope reads any log from any offset: an offset outside the log is
// refused; any other gives every byte after it, once, verbatim, in blocks
// of whole lines at contiguous offsets, and lines that cover them.
func FuzzScope(f *testing.F) {
	f.Add([]byte("a\nb\n"), int64(0))
	f.Add([]byte("\n\n\xff"), int64(1))
	f.Add([]byte(lifecycle(0, "1", 4, 4, hex64)), int64(24))
	f.Fuzz(func(t *testing.T, data []byte, off int64) {
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var total int
		var kept bytes.Buffer
		n, err := Scope{File: path, Offset: off}.Read(func(line []byte, _ int64) { total += len(line) + 1 }, &kept)
		if off < 0 || off > int64(len(data)) {
			if err == nil {
				t.Fatal("out-of-range offset accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(data))-off || !bytes.Equal(kept.Bytes(), data[off:]) {
			t.Fatalf("read %d of %d bytes", n, int64(len(data))-off)
		}
		if total < int(n) {
			t.Fatalf("lines cover %d of %d bytes", total, n)
		}
		var blocks bytes.Buffer
		next := off
		_, err = Scope{File: path, Offset: off}.ReadBlocks(func(block []byte, at int64) {
			if at != next {
				t.Fatalf("a block at %d, the one before ended at %d", at, next)
			}
			if blocks.Len() > 0 && !bytes.HasSuffix(blocks.Bytes(), []byte("\n")) {
				t.Fatalf("a block before %d did not end with its line", at)
			}
			blocks.Write(block)
			next += int64(len(block))
		}, nil)
		if err != nil || !bytes.Equal(blocks.Bytes(), data[off:]) {
			t.Fatalf("blocks hold %q, the scope %q (%v)", blocks.Bytes(), data[off:], err)
		}
	})
}

// searchRules are rules as a scenario's evidence section makes them: each
// with a required literal, one count-only, one whose literal is short.
func searchRules() []rule {
	votes := newRule("counter:votes", `vote rank=\d+`)
	votes.countOnly = true
	return []rule{
		newRule("activation", `activation rank=(?P<rank>\d+) count=(?P<count>\d+) digest=(?P<digest>\w+)`),
		newRule("counter:commits", `summary rank=(?P<rank>\d+) commits=(?P<n>\d+)`),
		votes,
		newRule("fact:x", `x=(?P<v>\d)`),
		newRule("lifecycle_end", `summary rank=(?P<rank>\d+)`),
		newRule("mode", `mode rank=(?P<rank>\d+) terminal=(?P<TERM_MODE>\d)`),
	}
}

type lineMatch struct {
	Off     int64
	Matched []map[string]string
}

// FuzzLineSearch holds the block search (anchor bytes planned from a
// sample, then the rules' literals) to the plain reading of every line:
// the same lines, with the same groups, in file order, whatever sample
// planned the anchors.
func FuzzLineSearch(f *testing.F) {
	log := []byte(lifecycle(0, "1", 4, 4, hex64) + "DEBUG vote rank=1 id=2\nx=7 mode rank=3 terminal=0 summary rank=3\n")
	f.Add(log, log)
	f.Add(log, []byte("vvvvvvvv mmmmmm ssss"))
	f.Add([]byte("summary rank=1\nsummary rank=1 commits=2"), []byte(""))
	rules := searchRules()
	f.Fuzz(func(t *testing.T, block, sample []byte) {
		if len(block) > 64<<10 {
			return
		}
		checkBlockSearch(t, rules, block, sample)
	})
}

// checkBlockSearch holds the block search of rules, anchors planned from
// sample, with AVX2 and without, to matching every line of block.
func checkBlockSearch(t *testing.T, rules []rule, block, sample []byte) {
	t.Helper()
	var want []lineMatch
	copyMatch := func(m []map[string]string, off int64) lineMatch {
		c := lineMatch{Off: off, Matched: make([]map[string]string, len(m))}
		copy(c.Matched, m)
		return c
	}
	matched := make([]map[string]string, len(rules))
	eachLine(block, 1000, func(line []byte, off int64) {
		hit := false
		for i := range rules { // a rule at a time: no mask of rules
			m := matchLine(rules[i:i+1], line, matched[i:i+1], allRules)
			hit = hit || m != nil
		}
		if hit {
			want = append(want, copyMatch(matched, off))
		}
	})
	for _, wide := range []bool{false, true} {
		searchWide(t, wide)
		plan := &anchorPlan{}
		plan.anchors(rules, sample) // the plan a role's first block made
		var got []lineMatch
		newSearcher(rules, plan).block(block, 1000, func(m []map[string]string, off int64) { got = append(got, copyMatch(m, off)) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the block search (AVX2 %v) found\n%v\nreading every line finds\n%v", wide && haveAVX2, got, want)
		}
	}
}

var (
	refMode       = regexp.MustCompile(`mode rank=(?P<rank>\d+) terminal=(?P<TERM_MODE>\d)`)
	refEnd        = regexp.MustCompile(`summary rank=(?P<rank>\d+)`)
	refActivation = regexp.MustCompile(`activation rank=(?P<rank>\d+) count=(?P<count>\d+) digest=(?P<digest>\w+) algorithm=(?P<algorithm>\S+)`)
)

// referenceLifecycle is docs/evidence.md's lifecycle rule read line by
// line, for scenarioYAML's rules: the first lifecycle-end line ends
// profiling, the next mode line starts the measured lifecycle, which the
// next lifecycle-end line ends. It returns the measured lifecycle's mode
// (its first mode line's groups but the rank) and activation (its last).
func referenceLifecycle(log []byte) (map[string]string, *Activation) {
	var mode map[string]string
	var act *Activation
	const profiling, awaiting, measured, after = 0, 1, 2, 3
	phase := profiling
	for _, line := range bytes.Split(log, []byte("\n")) {
		switch {
		case phase == profiling:
			if refEnd.Match(line) {
				phase = awaiting
			}
			continue
		case phase == awaiting && !refMode.Match(line), phase == after:
			continue
		}
		phase = measured
		if m := refMode.FindSubmatch(line); m != nil && mode == nil {
			mode = map[string]string{"TERM_MODE": string(m[2])}
		}
		if m := refActivation.FindSubmatch(line); m != nil {
			n, _ := strconv.ParseUint(string(m[2]), 10, 64)
			act = &Activation{Count: n, Digest: string(m[3]), Algorithm: string(m[4])}
		}
		if refEnd.Match(line) {
			phase = after
		}
	}
	return mode, act
}

// FuzzRankLogs derives the evidence of a run whose two ranks wrote any
// logs: the facts of each rank are the reference lifecycle's, read in one
// part or in several; every scoped byte is read; an accepted run's ranks
// ran the arm's mode and activated the declared workload.
func FuzzRankLogs(f *testing.F) {
	good := goodRun()
	f.Add([]byte(good.logs["ctx-0.log"]), []byte(good.logs["ctx-1.log"]), uint16(0))
	f.Add([]byte("noise\n"+good.logs["ctx-0.log"]), []byte(good.logs["ctx-1.log"]+"mode rank=1 terminal=1\n"), uint16(6))
	f.Add([]byte("mode rank=0 terminal=0\nsummary rank=0 commits=0 mode rank=0 terminal=1\nsummary rank=0 commits=9\n"), []byte("summary rank=1\n"), uint16(0))
	f.Fuzz(func(t *testing.T, log0, log1 []byte, offset uint16) {
		if len(log0) > 16<<10 || len(log1) > 16<<10 {
			return
		}
		r := goodRun()
		r.offset = int64(offset) % int64(min(len(log0), len(log1))+1)
		r.logs = map[string]string{"ctx-0.log": string(log0), "ctx-1.log": string(log1)}
		oldMin, oldParts := minPart, partsPerScope
		defer func() { minPart, partsPerScope = oldMin, oldParts }()
		partsPerScope = func(int) int { return 1 }
		one := r.collect(t)
		minPart, partsPerScope = 64, func(int) int { return 3 }
		parts := r.collect(t)
		facts := func(e *Evidence) string {
			ranks := make([]RankFacts, len(e.Ranks))
			for i, rf := range e.Ranks {
				rf.BytesRead = 0 // parts may read a little past their ends
				ranks[i] = rf
			}
			data, _ := json.Marshal(struct {
				Ranks    []RankFacts
				Accepted bool
				Reasons  any
			}{ranks, e.Accepted, e.Reasons})
			return string(data)
		}
		if a, b := facts(one), facts(parts); a != b {
			t.Fatalf("one reader:\n%s\nthree parts:\n%s", a, b)
		}
		if len(one.Ranks) != 2 {
			t.Fatalf("%d ranks' facts, want 2: %v", len(one.Ranks), one.Reasons)
		}
		for i, log := range [][]byte{log0, log1} {
			rf := one.Ranks[i]
			if rf.BytesRead != int64(len(log))-r.offset {
				t.Fatalf("rank %d: read %d of %d scoped bytes", i, rf.BytesRead, int64(len(log))-r.offset)
			}
			mode, act := referenceLifecycle(log[r.offset:])
			if !reflect.DeepEqual(rf.Mode, mode) || !reflect.DeepEqual(rf.Activation, act) {
				t.Fatalf("rank %d: mode %v activation %+v, the lifecycle rule gives %v %+v", i, rf.Mode, rf.Activation, mode, act)
			}
			if one.Accepted && (rf.Mode["TERM_MODE"] != "1" || rf.Activation == nil || rf.Activation.Count != 4 || rf.Activation.Digest != hex64) {
				t.Fatalf("accepted, but rank %d ran mode %v, activated %+v", i, rf.Mode, rf.Activation)
			}
		}
	})
}
