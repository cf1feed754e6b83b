package compare

import (
	"slices"
	"time"
)

// sideBySide counts the blocks of a campaign whose runs ran at the same
// time (abbench run --concurrent): every run of the block started before
// every other ended, as the runs' own start and end times say (their
// signed provenance, else status.json), never as plan.json claims. timed
// counts the blocks all of whose runs say when they ran.
func (g *gate) sideBySide() (overlapped, timed int) {
	type span struct{ start, end time.Time }
	byBlock := map[int][]span{}
	var blocks []int
	for i, run := range g.runs {
		if run.Campaign == nil || run.Campaign.Arms < 2 || i >= len(g.r.Runs) {
			continue
		}
		blk := run.Campaign.Block(run.Campaign.Index)
		if _, ok := byBlock[blk]; !ok {
			blocks = append(blocks, blk)
		}
		s := g.r.Runs[i]
		sp := span{}
		if !s.Started.IsZero() && s.Seconds > 0 {
			sp = span{s.Started, s.Started.Add(time.Duration(s.Seconds * float64(time.Second)))}
		}
		byBlock[blk] = append(byBlock[blk], sp)
	}
	slices.Sort(blocks)
	for _, blk := range blocks {
		spans := byBlock[blk]
		if len(spans) < 2 || slices.ContainsFunc(spans, func(s span) bool { return s.start.IsZero() }) {
			continue
		}
		timed++
		together := true
		for i, a := range spans {
			for j, b := range spans {
				if i != j && !a.start.Before(b.end) {
					together = false
				}
			}
		}
		if together {
			overlapped++
		}
	}
	return overlapped, timed
}
