package main

import (
	"fmt"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/abbench/abbench/internal/rundir"
)

// cmdOverlap is overlap DIR: for each two runs of the campaign in DIR
// that follow each other in its plan, "runs I J overlap" when each
// started (its newest attempt's status.json) before the other ended, and
// "runs I J apart" otherwise.
func cmdOverlap(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: overlap DIR")
	}
	p, err := rundir.ReadPlan(ts.MkAbs(args[0]))
	ts.Check(err)
	var last *rundir.Status
	for i, pr := range p.Runs {
		st, err := rundir.LatestStatus(pr.Dir)
		ts.Check(err)
		if st.Started.IsZero() || st.Ended.IsZero() {
			ts.Fatalf("run %d: %s has no start or no end (%s to %s)", pr.Index, rundir.StatusFile, st.Started, st.Ended)
		}
		if last != nil {
			how := "apart"
			if last.Started.Before(st.Ended) && st.Started.Before(last.Ended) {
				how = "overlap"
			}
			fmt.Fprintf(ts.Stdout(), "runs %d %d %s\n", p.Runs[i-1].Index, pr.Index, how)
		}
		last = st
	}
}
