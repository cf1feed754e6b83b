package compare

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
)

// VerifyRuns checks every run's bundle against opts; a refused run makes
// the error a *RunsRefused: a run that is not a bundle is not signed, so
// refused (ErrNotBundle). A run that left no evidence (a planned run that
// never started, an attempt killed before it wrote any) holds nothing to
// sign, and the gate censors it with its root cause, unless a sequential
// design's look decided before it: that the gate judges from the signed
// runs, never from plan.json.
//
// A run LoadRuns loaded with opts was verified then, signature included,
// and its evidence is what that verification passed: its outcome is
// reported, the bundle is not read again. Any other run (loaded with
// other options, or not by LoadRuns) is verified now, and its evidence
// and provenance become the ones this verification passed, so that what
// is compared is always what was verified.
func VerifyRuns(runs []Run, opts bundle.VerifyOptions) error {
	if refused := verifyRuns(runs, opts); len(refused) > 0 {
		return &RunsRefused{Refusals: refused}
	}
	return nil
}

func verifyRuns(runs []Run, opts bundle.VerifyOptions) []*Refusal {
	var refused []*Refusal
	var verifier *bundle.Verifier // made for the first run loading did not verify with opts
	for i := range runs {
		run := &runs[i]
		if run.Evidence == nil && len(run.Censor) > 0 {
			continue
		}
		if !run.IsBundle() {
			refused = append(refused, &Refusal{Code: reason.SignatureInvalid, Run: run.Path, Err: fmt.Errorf("%s: %w", run.Path, ErrNotBundle)})
			continue
		}
		err := run.checked.err
		if !run.checked.done || run.checked.with != opts {
			if verifier == nil {
				verifier = bundle.NewVerifier(opts) // the runs' scenario parsed once
			}
			err = run.verifyNow(verifier, opts)
		}
		if err != nil {
			refused = append(refused, &Refusal{Code: reason.SignatureInvalid, Run: run.Path, Err: asGiven{err: err, dir: run.Dir, path: run.Path}})
		}
	}
	return refused
}

// verifyNow verifies the run's bundle with opts and makes what that
// verification passed the run's evidence and provenance.
func (r *Run) verifyNow(verifier *bundle.Verifier, opts bundle.VerifyOptions) error {
	v, err := verifier.Verify(r.Dir)
	r.checked = checked{with: opts, err: err, done: true}
	if err != nil {
		return err
	}
	r.Evidence, r.prov, r.bundle = v.Evidence, v.Provenance, signedBundle
	if v.Unsigned {
		r.bundle = unsignedBundle
	}
	if r.prov != nil {
		r.Campaign, r.Machines = r.prov.Campaign, r.prov.Machines
	}
	return nil
}

// VerifyPaths verifies every bundle the paths lead to, as rundir.Resolve
// reads a path: an archive or bundle itself, an attempt's bundle, an arm
// directory's newest attempt, and every run of a campaign. A campaign's
// planned run that never ran passes only when the campaign stopped at a
// look its signed rule decided (judged from the signed runs, as compare
// judges it); any other missing run, an attempt without its bundle, or a
// bundle that does not verify fails. failed counts the failed checks.
func VerifyPaths(paths []string, opts bundle.VerifyOptions) (checks []bundle.Check, failed int) {
	add := func(cs []bundle.Check, f int) { checks, failed = append(checks, cs...), failed+f }
	for _, p := range paths {
		if rundir.IsArchive(p) || bundle.IsBundle(p) {
			add(bundle.CheckAll([]string{p}, opts))
			continue
		}
		found, cleanup, err := rundir.Resolve(p, nil)
		cleanup()
		if err != nil {
			add([]bundle.Check{{Bundle: p, Error: err.Error()}}, 1)
			continue
		}
		var stop *Stop
		stopJudged := false
		for _, f := range found {
			switch {
			case f.Problem == "" && f.Bundle == "":
				add([]bundle.Check{{Bundle: f.Source, Error: fmt.Sprintf("%s: its attempt %s has no bundle (see its %s)", f.Source, filepath.Base(f.Dir), rundir.ControllerLog)}}, 1)
			case f.Problem == "":
				c, n := bundle.CheckAll([]string{f.Bundle}, opts)
				c[0].Bundle = f.Source
				if n > 0 {
					c[0].Error = strings.ReplaceAll(c[0].Error, f.Bundle, f.Source)
				}
				add(c, n)
			default:
				if !stopJudged && f.Planned != nil && f.Planned.Result == nil {
					stop, stopJudged = campaignStop(p, opts), true
				}
				if stop != nil && f.Planned != nil && f.Planned.Result == nil {
					add([]bundle.Check{{Bundle: f.Source, OK: true, NotRun: "never ran, not needed: " + stop.String()}}, 0)
					continue
				}
				add([]bundle.Check{{Bundle: f.Source, Error: f.Problem + ": a campaign is verified whole"}}, 1)
			}
		}
	}
	return checks, failed + failDuplicates(checks)
}

// failDuplicates fails every check that verified a second run of a plan
// index another check verified (the same plan digest and index), naming
// both: a planned run counts once, so a stage run again, or a campaign's
// run made again by abbench arm --plan, is never verified as the plan's.
// It returns how many checks it failed.
func failDuplicates(checks []bundle.Check) int {
	type planned struct {
		plan  string
		index int
	}
	first := map[planned]string{}
	failed := 0
	for i := range checks {
		c := &checks[i]
		if !c.OK || c.Campaign == nil {
			continue
		}
		key := planned{c.Campaign.PlanDigest, c.Campaign.Index}
		if path, twice := first[key]; twice {
			c.OK, c.Error = false, fmt.Sprintf("%s: %s and %s are both run %d of campaign plan %s: a planned run counts once; verify one of them (the stage's own), not both",
				reason.DuplicateRun, path, c.Bundle, key.index, short(key.plan))
			failed++
			continue
		}
		first[key] = c.Bundle
	}
	return failed
}

// campaignStop is where the campaign at dir stopped by its own signed
// rule, or nil when it did not.
func campaignStop(dir string, opts bundle.VerifyOptions) *Stop {
	runs, cleanup, err := LoadRuns([]string{dir}, opts)
	defer cleanup()
	if err != nil {
		return nil
	}
	return Compare(runs, Options{}).Stopped
}
