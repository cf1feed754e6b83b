package compare

import (
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
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
// judges it); any other missing run, an attempt without its bundle, a
// bundle that does not verify, or a second run of one plan index
// (duplicate-run) fails. Each bundle is read and verified once, and the
// stop is judged from what that verification passed. failed counts the
// failed checks.
func VerifyPaths(paths []string, opts bundle.VerifyOptions) (checks []bundle.Check, failed int) {
	verifier := bundle.NewVerifier(opts) // the runs' scenario parsed once
	for _, p := range paths {
		var cs []bundle.Check
		if rundir.IsArchive(p) || bundle.IsBundle(p) {
			cs, _ = bundle.CheckAll([]string{p}, opts)
		} else if found, cleanup, err := rundir.Resolve(p, nil); err != nil {
			cleanup()
			cs = []bundle.Check{{Bundle: p, Error: err.Error()}}
		} else {
			cleanup()
			cs = verifyFound(found, verifier)
		}
		checks = append(checks, cs...)
	}
	failDuplicates(checks)
	for _, c := range checks {
		if !c.OK {
			failed++
		}
	}
	return checks, failed
}

// verifyFound checks every run found at one path: each bundle verified
// once by verifier, then each planned run that left nothing judged by
// the campaign's stop, as Compare judges it from the runs just verified.
func verifyFound(found []rundir.Found, verifier *bundle.Verifier) []bundle.Check {
	checks := make([]bundle.Check, len(found))
	runs := make([]Run, len(found))
	for i, f := range found {
		switch {
		case f.Problem == "" && f.Bundle == "":
			why := fmt.Sprintf("%s: its attempt %s has no bundle (see its %s)", f.Source, filepath.Base(f.Dir), rundir.ControllerLog)
			checks[i] = bundle.Check{Bundle: f.Source, Error: why}
			runs[i] = Run{Path: f.Source, Censor: []reason.Reason{reason.New(reason.BundleInvalid, "%s", why)}}
		case f.Problem == "":
			run, v, err := loadRun(f, verifier)
			switch {
			case err != nil:
			case run.checked.err != nil:
				err = run.checked.err
			case v == nil: // its bundle directory holds no manifest
				err = fmt.Errorf("%s: %w", f.Source, ErrNotBundle)
			}
			if err != nil {
				err = asGiven{err: err, dir: f.Bundle, path: f.Source}
			}
			checks[i], runs[i] = bundle.NewCheck(f.Source, v, err), run
		default:
			runs[i] = missingRun(f)
		}
	}
	var stop *Stop
	stopJudged := false
	for i, f := range found {
		if f.Problem == "" {
			continue
		}
		if f.Planned != nil && f.Planned.Result == nil {
			if !stopJudged {
				stop, stopJudged = Compare(runs, Options{}).Stopped, true
			}
			if stop != nil {
				checks[i] = bundle.Check{Bundle: f.Source, OK: true, NotRun: "never ran, not needed: " + stop.String()}
				continue
			}
		}
		checks[i] = bundle.Check{Bundle: f.Source, Error: f.Problem + ": a campaign is verified whole", NeverRan: f.Planned != nil && f.Planned.Result == nil}
	}
	return checks
}

// failDuplicates fails every check that verified a second run of a plan
// index another check verified (the same plan digest and index), naming
// both: a planned run counts once, so a stage run again, or a campaign's
// run made again by abbench arm --plan, is never verified as the plan's.
func failDuplicates(checks []bundle.Check) {
	type planned struct {
		plan  string
		index int
	}
	first := map[planned]string{}
	for i := range checks {
		c := &checks[i]
		if !c.OK || c.Campaign == nil {
			continue
		}
		key := planned{c.Campaign.PlanDigest, c.Campaign.Index}
		if path, twice := first[key]; twice {
			c.OK, c.Error = false, fmt.Sprintf("%s: %s and %s are both run %d of campaign plan %s: a planned run counts once: verify one of the two (a stage run again replaces its first run, never adds to it)",
				reason.DuplicateRun, path, c.Bundle, key.index, short(key.plan))
			continue
		}
		first[key] = c.Bundle
	}
}
