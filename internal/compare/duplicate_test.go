package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// duplicates are the comparison's duplicate-run reasons.
func duplicates(r *Result) []reason.Reason {
	var out []reason.Reason
	for _, rs := range r.Reasons {
		if rs.Code == reason.DuplicateRun {
			out = append(out, rs)
		}
	}
	return out
}

// TestAPlannedRunGivenTwiceCountsOnce: a stage of a plan run again (its
// own token, its own directory) beside the six stages is a second run of
// one plan index: the comparison is censored duplicate-run naming both
// directories, never compared with one arm counted four times. Before,
// the gate keyed the plan's runs by index in a set, and the second run
// of index 2 passed (arm async n=4, improved).
func TestAPlannedRunGivenTwiceCountsOnce(t *testing.T) {
	blocks := [][2]float64{{1000, 1100}, {1001, 1101}, {999, 1099}}
	runs := campaignRuns(blocks, nil, 0, len(blocks))
	if r := Compare(runs, Options{Effect: 1}); r.Verdict != Improved {
		t.Fatalf("the plan's runs alone: %s %v", r.Verdict, r.Reasons)
	}
	again := runs[1] // run 2 of the plan
	again.Path, again.Evidence = "stage-2-again", ev(again.Evidence.Arm, "another-token", 1150)
	r := Compare(append(runs, again), Options{Effect: 1})
	dups := duplicates(r)
	if r.Verdict != Censored || len(dups) != 1 {
		t.Fatalf("run 2 given twice: %s, reasons %v", r.Verdict, r.Reasons)
	}
	if d := dups[0].Detail; !strings.Contains(d, runs[1].Path+" and stage-2-again are both run "+runs[1].Path+" of campaign plan plan") {
		t.Errorf("the reason %q does not name both runs and the plan index", d)
	}
	if dups[0].Arm != again.Evidence.Arm {
		t.Errorf("the reason's arm %q, want %q", dups[0].Arm, again.Evidence.Arm)
	}
}

// TestTheSameRunGivenTwiceIsSaidOnce: a run given twice (one token) is one
// duplicate-run reason, not a second one for its plan index as well.
func TestTheSameRunGivenTwiceIsSaidOnce(t *testing.T) {
	runs := campaignRuns([][2]float64{{1000, 1100}, {1001, 1101}, {999, 1099}}, nil, 0, 3)
	copied := runs[2]
	copied.Path = "copy-of-3"
	r := Compare(append(runs, copied), Options{Effect: 1})
	if dups := duplicates(r); r.Verdict != Censored || len(dups) != 1 || !strings.Contains(dups[0].Detail, "are the same run (token") {
		t.Fatalf("one run given twice: %s, reasons %v", r.Verdict, r.Reasons)
	}
}

// TestVerifyFailsASecondRunOfOnePlanIndex: abbench verify of several
// runs fails the second bundle of one plan index (one plan digest),
// naming both; the first and the runs of other indexes pass. Before,
// each bundle was verified alone and both passed.
func TestVerifyFailsASecondRunOfOnePlanIndex(t *testing.T) {
	again := copiesOf(t, "../../testdata/nccl/bundles/2-tree.tar.gz", 1)[0]
	ring, tree := "../../testdata/nccl/bundles/1-ring.tar.gz", "../../testdata/nccl/bundles/2-tree.tar.gz"
	checks, failed := VerifyPaths([]string{ring, tree, again}, signersOf(t))
	if len(checks) != 3 || failed != 1 || !checks[0].OK || !checks[1].OK || checks[2].OK {
		t.Fatalf("failed %d of %+v: want the third alone failed", failed, checks)
	}
	if e := checks[2].Error; !strings.HasPrefix(e, "duplicate-run: "+tree+" and "+again+" are both run 2 of campaign plan 02f36843fc5a") {
		t.Errorf("the failure %q does not name both runs, their index and plan", e)
	}
}
