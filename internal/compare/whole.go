package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// campaigns holds runs against the campaign plan their signed provenance
// records: runs of a campaign are compared whole (every run of the plan,
// none from elsewhere), whatever plan.json says now.
func (g *gate) campaigns() {
	var ref *rundir.CampaignRef
	refPath := ""
	given := map[int]string{} // the path of each plan index given
	var outside []string
	for i, run := range g.runs {
		c := run.Campaign
		if g.copies[i] {
			continue // the same run given again: said by check
		}
		if c == nil {
			outside = append(outside, run.Path)
			continue
		}
		if ref == nil {
			ref, refPath = c, run.Path
		} else if c.PlanDigest != ref.PlanDigest {
			g.add(reason.New(reason.RunMissing, "run %s belongs to campaign plan %s, run %s to plan %s: runs of different campaigns are not one comparison",
				run.Path, short(c.PlanDigest), refPath, short(ref.PlanDigest)))
			continue
		}
		if first, twice := given[c.Index]; twice {
			g.add(duplicateIndex(first, run, ref))
			continue
		}
		given[c.Index] = run.Path
	}
	if ref == nil {
		for _, idx := range slices.Sorted(maps.Keys(g.notRun)) {
			g.undone = append(g.undone, g.notRun[idx]...)
		}
		return
	}
	for _, path := range outside {
		g.add(reason.New(reason.RunMissing, "run %s is not a run of campaign plan %s (run %s is): a campaign is compared whole", path, short(ref.PlanDigest), refPath))
	}
	last := 0
	for idx := range given {
		last = max(last, idx)
	}
	// After a sequential campaign's last given block, runs may be missing
	// because a look decided: whether one did, the statistics say.
	afterStop := func(idx int) bool { return ref.Sequential != nil && ref.Block(idx) > ref.Block(last) }
	for _, idx := range slices.Sorted(maps.Keys(g.notRun)) {
		rs := g.notRun[idx]
		if afterStop(idx) {
			g.deferred = append(g.deferred, rs...)
		} else {
			g.undone = append(g.undone, rs...)
		}
	}
	// The runs not given are said in one reason (two, where a sequential
	// campaign's stop may account for some): a comparison of two runs of
	// a campaign of 40 is one fact, not 38 lines.
	var notGiven, notGivenAfter []string
	for _, id := range ref.Runs {
		idx := rundir.RunIndex(id)
		if _, ok := given[idx]; ok || g.missing[id] {
			continue
		}
		if afterStop(idx) {
			notGivenAfter = append(notGivenAfter, id)
		} else {
			notGiven = append(notGiven, id)
		}
	}
	if len(notGiven) > 0 {
		g.add(notGivenReason(notGiven, ref))
	}
	if len(notGivenAfter) > 0 {
		g.deferred = append(g.deferred, notGivenReason(notGivenAfter, ref))
	}
	if len(g.deferred) > 0 {
		g.deferred = append([]reason.Reason{reason.New(reason.RunMissing,
			"the sequential campaign ends after pair %d of at most %d, but no look decided: it was stopped, not finished (the runs after it follow)",
			ref.Block(last)+1-ref.Warmup, ref.Sequential.MaxPairs)}, g.deferred...)
	}
}

// notGivenReason says that the planned runs ids (in the plan's order)
// were not given.
func notGivenReason(ids []string, ref *rundir.CampaignRef) reason.Reason {
	if len(ids) == 1 {
		return reason.New(reason.RunMissing, "run %s of the signed campaign plan %s was not given: a campaign is compared whole", ids[0], short(ref.PlanDigest))
	}
	return reason.New(reason.RunMissing, "%d runs of the signed campaign plan %s were not given (%s): a campaign is compared whole",
		len(ids), short(ref.PlanDigest), runSpans(ids))
}

// runSpans names planned runs (in the plan's order) by spans of
// consecutive indexes: "1-a, 3-a to 22-b".
func runSpans(ids []string) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && rundir.RunIndex(ids[j+1]) == rundir.RunIndex(ids[j])+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ids[i])
		switch {
		case j == i+1:
			b.WriteString(", " + ids[j])
		case j > i:
			b.WriteString(" to " + ids[j])
		}
		i = j + 1
	}
	return b.String()
}

// duplicateIndex says that run is a second run of the plan index a run at
// first already is: a planned run counts once, so a stage run again (with
// another token) beside the first, or a campaign's run made again by
// abbench arm --plan, would weigh its arm twice.
func duplicateIndex(first string, run Run, ref *rundir.CampaignRef) reason.Reason {
	c := run.Campaign
	id := fmt.Sprint(c.Index)
	for _, planned := range c.Runs {
		if rundir.RunIndex(planned) == c.Index {
			id = planned // N-ARM, as the plan names it
		}
	}
	rs := reason.New(reason.DuplicateRun, "%s and %s are both run %s of campaign plan %s: a planned run counts once: give one of the two (a stage run again replaces its first run, never adds to it)",
		first, run.Path, id, short(ref.PlanDigest))
	if run.Evidence != nil {
		rs.Arm = run.Evidence.Arm
	}
	return rs
}
