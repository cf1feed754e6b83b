package campaign

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// RefusedError refuses to resume a campaign: Changes name, one each,
// what is not as the campaign began (its scenario, a flag, a binary, the
// plan they make), or why there is nothing to resume.
type RefusedError struct {
	Dir     string
	Changes []string
	// NoCampaign says Dir holds no campaign at all (no plan.json): not a
	// campaign changed since it began, but the wrong directory.
	NoCampaign bool
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
	was, recErr := Recorded(c.Out)
	// A plan made before abba's blocks were drawn resumes in the order it
	// recorded: alternating from the first block.
	c.alternate = recErr == nil && !was.OrderDrawn
	fresh, err := Plan(c)
	if err != nil {
		return nil, err
	}
	if recErr != nil {
		return nil, recErr
	}
	fresh.Plan.ID = was.ID // the campaign's identity is the one it began with, not a new one
	changes := resumeChanges(was, fresh.Plan, c.OptionName)
	sut := executableChanges(was.Resume.Executables, fresh.Plan.Resume.Executables)
	switch {
	case len(sut) > 0 && c.NewBlocks && was.Order == OrderRandom:
		changes = append(changes, "the system under test changed, and a random order has no blocks to begin anew (its runs are compared unpaired, runs of both systems together): begin a new campaign")
	case len(sut) > 0 && !c.NewBlocks:
		changes = append(changes, sut...)
	}
	if len(changes) > 0 {
		return nil, &RefusedError{Dir: c.Out, Changes: changes}
	}
	r := &Result{Out: fresh.Out, Plan: was, Runs: make([]Run, len(was.Runs)), given: c.Out}
	for i := range was.Runs {
		// Where the campaign lies now: a copied or moved campaign runs
		// and reads its runs there, not where plan.json was first written
		// (samePlan held the runs' names equal).
		was.Runs[i].Dir = fresh.Plan.Runs[i].Dir
		r.Runs[i].Planned = &was.Runs[i]
		r.Runs[i].reopen()
	}
	now := time.Now().UTC()
	if len(sut) > 0 {
		r.newBlocks(c.blockSize()*max(1, len(was.Cells)), now, sut, fresh.Plan.Resume.Executables)
	}
	was.Resume.Resumed = append(was.Resume.Resumed, now)
	return r, nil
}

// newBlocks continues a campaign whose system under test changed (the
// files its roles run, changes) so that no block of size runs (a run of
// every arm, of every cell of a sweep), which the statistics pair
// within, holds runs of both systems: a block whose runs all ended is
// kept (all of one system, the old), one with none ended runs as
// planned (all of the new), and one with runs ended and runs left runs
// again whole, each run that had ended as a new attempt beside its old
// one (marked interrupted until it starts, so that a resume of this
// resume runs it too). plan.json then holds the campaign to the new
// files, and records the change and the runs made again.
func (r *Result) newBlocks(size int, at time.Time, changes []string, now []rundir.Executable) {
	var again []int
	for start := 0; start < len(r.Runs); start += size {
		block := r.Runs[start:min(start+size, len(r.Runs))]
		if !slices.ContainsFunc(block, func(run Run) bool { return run.kept }) || !slices.ContainsFunc(block, func(run Run) bool { return !run.kept }) {
			continue
		}
		for i := range block {
			if run := &block[i]; run.kept {
				run.kept, run.Status, run.Evidence = false, nil, nil
				pr := run.Planned
				pr.Result, pr.Accepted, pr.Interrupted = nil, nil, true
				again = append(again, pr.Index)
			}
		}
	}
	res := r.Plan.Resume
	res.Executables = now
	res.NewBlocks = append(res.NewBlocks, rundir.NewBlocks{At: at, Changes: changes, Again: again})
}

// Recorded reads the plan of the campaign begun in dir, with what a
// resume holds it to (*RefusedError when there is no campaign, or it
// records nothing to hold a resume to).
func Recorded(dir string) (*rundir.Plan, error) {
	p, err := rundir.ReadPlan(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &RefusedError{Dir: dir, Changes: []string{"it holds no " + rundir.PlanFile + ": no campaign began there"}, NoCampaign: true}
	} else if err != nil {
		return nil, err
	}
	if p.Resume == nil {
		return nil, &RefusedError{Dir: dir, Changes: resumeChanges(p, p, nil)}
	}
	// A plan written before options were recorded by meaning records them
	// by the flags of then: read by what those meant, it resumes whatever
	// the flags are called now.
	if err := p.Resume.UpgradeFlags(); err != nil {
		return nil, &RefusedError{Dir: dir, Changes: []string{err.Error()}}
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
