package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// threeArmRuns are the runs of an abba campaign of blocks of three arms
// (blocking, the baseline, then async and spin, the order reversed in odd
// blocks), each value a block's by arm.
func threeArmRuns(blocks []map[string]float64, seq *rundir.Sequential) []Run {
	arms := []string{"blocking", "async", "spin"}
	env := map[string]string{"blocking": "0", "async": "1", "spin": "2"}
	var ids []string
	for b := range blocks {
		order := append([]string(nil), arms...)
		if b%2 == 1 {
			order[0], order[2] = order[2], order[0]
		}
		for i, arm := range order {
			ids = append(ids, rundir.RunID(3*b+i+1, arm))
		}
	}
	var runs []Run
	for i, id := range ids {
		arm := strings.SplitN(id, "-", 2)[1]
		e := ev(arm, id, blocks[i/3][arm])
		e.Arms = arms
		e.ArmEnv = map[string]string{"T": env[arm]}
		e.Ranks[0].Mode = map[string]string{"T": env[arm]}
		ref := &rundir.CampaignRef{PlanDigest: "plan", Order: "abba", Arms: 3, Index: i + 1, Runs: ids, Sequential: seq}
		runs = append(runs, Run{Path: id, Evidence: e, Campaign: ref})
	}
	return runs
}

// Two treatments of a sequential campaign are one family: each is held to
// half the design's alpha at its looks, so that together they say a false
// change no more often than one would. A treatment whose look has p 0.036
// is improved alone at 0.05, but not as one of two (it was, before the
// family was split: Holm applied only to fixed designs).
func TestSequentialTreatmentsShareAlpha(t *testing.T) {
	seq := &rundir.Sequential{MinPairs: 3, MaxPairs: 3, Alpha: 0.05, LookAlpha: 0.05}
	blocks := []map[string]float64{
		{"blocking": 1000, "async": 1050, "spin": 1000},
		{"blocking": 1000, "async": 1032.7, "spin": 1010},
		{"blocking": 1000, "async": 1067.3, "spin": 990},
	}
	r := Compare(threeArmRuns(blocks, seq), Options{Baseline: "blocking", Effect: 1})
	if len(r.Reasons) > 0 || len(r.Deltas) != 2 {
		t.Fatalf("%s: %v", r.Verdict, r.Reasons)
	}
	async := *deltaOf(r.Deltas, "async")
	if async.P == nil || *async.P < 0.025 || *async.P > 0.05 {
		t.Fatalf("the test's pairs should give a p between 0.025 and 0.05: %v (%s)", async.P, async.Why)
	}
	if async.Verdict == Improved || async.Alpha != 0.025 || async.Looks[0].Alpha != 0.025 {
		t.Errorf("async, p %.3f, as one of two treatments: %s at level %g (look at %g): %s", *async.P, async.Verdict, async.Alpha, async.Looks[0].Alpha, async.Why)
	}
	if line := r.DesignLine(); !strings.Contains(line, "each of 2 treatments held to 0.025, its share of 0.05, so that together they claim a false change at most 5% of the time") {
		t.Errorf("the design line does not say the family: %q", line)
	}
	// Alone with the baseline, the same pairs decide at the whole alpha.
	alone := Compare(campaignRuns([][2]float64{{1000, 1050}, {1000, 1032.7}, {1000, 1067.3}}, seq, 0, 3), Options{Effect: 1})
	if alone.Verdict != Improved {
		t.Errorf("one treatment, p %v: %s (%s)", alone.Deltas[0].P, alone.Verdict, alone.Deltas[0].Why)
	}
}
