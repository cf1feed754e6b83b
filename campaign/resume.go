package campaign

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/rundir"
)

// RefusedError refuses to resume a campaign: Changes name, one each,
// what is not as the campaign began (its scenario, a flag, a binary, the
// plan they make), or why there is nothing to resume.
type RefusedError struct {
	Dir     string
	Changes []string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s cannot be resumed: %s", e.Dir, strings.Join(e.Changes, "; "))
}

// Reopen is Plan for a campaign begun earlier in c.Out: c must plan the
// same campaign plan.json records (the same scenario, flags and binaries,
// and so the same runs, order and seed), else *RefusedError names each
// change. It returns the recorded plan with what each run left, to be
// continued by Execute: a run that ended, accepted or censored, is kept;
// one that was interrupted, never started, or ended unwatched without
// its evidence, runs again, as a new attempt in its directory. The caller
// holds the campaign's Lock, so no other abbench run changes it meanwhile.
func Reopen(c *Config) (*Result, error) {
	fresh, err := Plan(c)
	if err != nil {
		return nil, err
	}
	was, err := Recorded(c.Out)
	if err != nil {
		return nil, err
	}
	fresh.Plan.ID = was.ID // the campaign's identity is the one it began with, not a new one
	if changes := resumeChanges(was, fresh.Plan); len(changes) > 0 {
		return nil, &RefusedError{Dir: c.Out, Changes: changes}
	}
	r := &Result{Out: fresh.Out, Plan: was, Runs: make([]Run, len(was.Runs)), given: c.Out}
	for i := range was.Runs {
		r.Runs[i].Planned = &was.Runs[i]
		r.Runs[i].reopen()
	}
	was.Resume.Resumed = append(was.Resume.Resumed, time.Now().UTC())
	return r, nil
}

// Recorded reads the plan of the campaign begun in dir, with what a
// resume holds it to (*RefusedError when there is no campaign, or it
// records nothing to hold a resume to).
func Recorded(dir string) (*rundir.Plan, error) {
	p, err := rundir.ReadPlan(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &RefusedError{Dir: dir, Changes: []string{"it holds no " + rundir.PlanFile + ": no campaign began there"}}
	} else if err != nil {
		return nil, err
	}
	if p.Resume == nil {
		return nil, &RefusedError{Dir: dir, Changes: resumeChanges(p, p)}
	}
	return p, nil
}

// Left counts the runs a reopened campaign has left to run.
func (r *Result) Left() int {
	n := 0
	for _, run := range r.Runs {
		if !run.kept {
			n++
		}
	}
	return n
}

// reopen settles what a resumed campaign does with the run: keep it when
// it ended, as the campaign recorded it or, when the campaign was gone
// by then (a Slurm job ends without its submitter), as its newest
// attempt's files say; run it again otherwise.
func (run *Run) reopen() {
	pr := run.Planned
	run.collect()
	if pr.Interrupted {
		return
	}
	if pr.Result != nil {
		run.kept = true
		return
	}
	st := run.Status
	if st == nil || st.State == rundir.StateRunning || st.State == rundir.StateInterrupted || run.Evidence == nil {
		return
	}
	// abbench arm exits 0 for accepted evidence and 3 for censored: what
	// its controller said, as the campaign would have recorded it.
	res := rundir.Outcome{State: launcher.Succeeded, AllocationID: pr.Allocation, Started: st.Started, Ended: st.Ended,
		Detail: "ended while no abbench run watched it: recorded by abbench run --resume from the run's files"}
	if !run.Evidence.Accepted {
		res.State, res.ExitCode = launcher.Failed, 3
	}
	pr.Result = &res
	run.kept = true
}
