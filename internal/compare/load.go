package compare

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/parallel"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// LoadRuns reads the runs at paths, each resolved by rundir.Resolve (a
// bundle directory or archive, an attempt directory, an abbench arm --out
// directory, an abbench run --out directory); an attempt with a bundle is
// read through its bundle. A path that holds none of these is an error
// naming it. cleanup removes unpacked archives and is never nil.
//
// What makes a run unusable without making the comparison impossible comes
// back as the run's Censor reasons, for the gate: a planned run of a
// campaign that left nothing (or one the plan does not list), a controller
// that failed itself, an attempt without its bundle, a bundle whose files
// or evidence do not verify (checked whether or not it is signed).
//
// Each bundle is read and verified once, with verify: given allowed
// signers, its signature is checked in that same pass, and the evidence
// compared is the one that pass verified; VerifyRuns then says what it
// found without reading the bundle again (a bundle swapped on disk after
// its evidence was read can never pass as signature-checked). Without
// allowed signers everything but the signature is checked.
//
// Archives are unpacked by bundle.UnpackVerified with verify (without
// allowed signers the signature is not checked, but only the files the
// manifest lists are extracted, each against its digest); an archive
// refused there is a *bundle.VerifyError.
func LoadRuns(paths []string, verify bundle.VerifyOptions) (runs []Run, cleanup func(), err error) {
	vo := loadOptions(verify)
	unpack := func(archive, dir string) error { return bundle.UnpackVerified(archive, dir, vo) }
	all, cleanup, err := resolveAll(paths, unpack)
	if err != nil {
		return nil, cleanup, err
	}
	runs, err = loadAll(all, vo) // the runs of every path at once: a path may hold few
	return runs, cleanup, err
}

// loadOptions are the options loading verifies bundles with: verify's,
// signature included, when it names allowed signers; else every check
// but the signature, unsigned bundles accepted.
func loadOptions(verify bundle.VerifyOptions) bundle.VerifyOptions {
	if verify.AllowedSigners == nil {
		verify.SkipSignature, verify.AllowUnsigned = true, true
	}
	return verify
}

// resolveAll resolves every path on every core (a campaign's plan.json
// and each run's LATEST read: with a thousand campaigns, a tenth of
// loading, which one core alone made wait), and returns their runs in
// the paths' order; the first error in that order is returned. cleanup
// removes what every path unpacked.
func resolveAll(paths []string, unpack rundir.Unpacker) ([]rundir.Found, func(), error) {
	found := make([][]rundir.Found, len(paths))
	cleanups := make([]func(), len(paths))
	errs := make([]error, len(paths))
	parallel.Each(len(paths), func(i int) { found[i], cleanups[i], errs[i] = rundir.Resolve(paths[i], unpack) })
	cleanup := func() {
		for _, c := range cleanups {
			c()
		}
	}
	if err := cmp.Or(errs...); err != nil {
		return nil, cleanup, err
	}
	return slices.Concat(found...), cleanup, nil
}

// loadAll loads found runs on every core (each bundle is verified, its
// evidence derived again from its files: milliseconds a run, which
// thousands of runs make seconds), in their order; the first error in
// that order is returned.
func loadAll(found []rundir.Found, vo bundle.VerifyOptions) ([]Run, error) {
	verifier := bundle.NewVerifier(vo)
	runs := make([]Run, len(found))
	errs := make([]error, len(found))
	parallel.Each(len(found), func(i int) {
		f := found[i]
		if f.Problem == "" {
			runs[i], _, errs[i] = loadRun(f, verifier)
			runs[i].checked.with, runs[i].checked.done = vo, true
			return
		}
		runs[i] = missingRun(f)
	})
	if err := cmp.Or(errs...); err != nil {
		return nil, err
	}
	for i, f := range found {
		if f.Planned != nil {
			runs[i].Cell = f.Planned.Cell // a sweep's run that left no evidence is still of its cell
		}
	}
	return runs, nil
}

// missingRun is the run of a campaign's entry f that holds no attempt to
// read (f.Problem says why): censored run-missing, and, for a planned run
// that never started, its index, so that the gate can judge whether a
// sequential design stopped before it.
func missingRun(f rundir.Found) Run {
	run := Run{Path: f.Source, Censor: []reason.Reason{reason.New(reason.RunMissing, "%s: a campaign is compared whole", f.Problem)}}
	if f.Planned != nil && f.Planned.Result == nil {
		run.NotRun, run.NotRunArm = f.Planned.Index, f.Planned.Arm
	}
	return run
}

// IsBundle reports whether the run was read from a bundle.
func (r Run) IsBundle() bool {
	if r.bundle == unknownBundle {
		return bundle.IsBundle(r.Dir)
	}
	return r.bundle != noBundle
}

// signed reports whether the run's bundle holds a signature (checked or not).
func (r Run) signed() bool {
	switch r.bundle {
	case signedBundle:
		return true
	case unsignedBundle, noBundle:
		return false
	}
	return exists(filepath.Join(r.Dir, bundle.SignatureFile))
}

// bundleState is what loading a run found of its bundle, so that the
// checks after it ask the kernel nothing more of thousands of runs.
type bundleState int

const (
	unknownBundle  bundleState = iota // not loaded by LoadRuns: ask the directory
	noBundle                          // the run's directory holds no manifest
	unsignedBundle                    // its bundle verified, and holds no signature
	signedBundle                      // its bundle verified, and holds a signature
	failedBundle                      // its bundle does not verify
)

// loadRun reads the run f found: a bundle is verified first, and a run
// whose bundle verifies is read from what verification parsed (its
// evidence and provenance, from the bytes their digests were checked on);
// any other run is read from its files. verified is what the bundle's
// verification passed (nil when it failed, or there is no bundle).
func loadRun(f rundir.Found, verifier *bundle.Verifier) (run Run, verified *bundle.Verified, err error) {
	dir := f.EvidenceDir()
	verified, invalid := verifier.Verify(dir) // a directory without a manifest fails its first read: no bundle
	run = Run{Path: f.Source, Dir: dir, bundle: failedBundle}
	isBundle := !bundle.NoBundle(invalid)
	switch {
	case !isBundle:
		run.bundle, invalid = noBundle, nil
	case verified != nil && verified.Unsigned:
		run.bundle = unsignedBundle
	case verified != nil:
		run.bundle = signedBundle
	}
	run.checked.err = invalid
	if verified != nil {
		run.Evidence, run.prov = verified.Evidence, verified.Provenance
	} else if err := readRun(f, &run); err != nil {
		return Run{}, nil, err
	} else if run.Evidence == nil {
		return run, nil, nil // withoutEvidence's
	}
	path := filepath.Join(dir, rundir.EvidenceFile)
	if run.Evidence.Schema != evidence.Schema {
		return Run{}, nil, fmt.Errorf("%s: schema %q is not %s", path, run.Evidence.Schema, evidence.Schema)
	}
	if prov := run.prov; prov != nil {
		run.Campaign, run.Machines = prov.Campaign, prov.Machines
	}
	if pr := f.Planned; pr != nil && pr.Result.ControllerFailed() && !(pr.Interrupted && saysInterrupted(run.Evidence)) {
		// A controller that exited 1 because the campaign was stopped
		// (Ctrl-C) failed nothing: its evidence, censored interrupted,
		// says so, and a controller-failed before it read as a fault to
		// fix.
		run.censor(controllerReason(f, ""))
	}
	switch {
	case invalid != nil:
		run.censor(reason.New(reason.BundleInvalid, "run %s: %s", f.Source, strings.ReplaceAll(invalid.Error(), dir, f.Source)))
	case !isBundle && exists(filepath.Join(f.Dir, rundir.StatusFile)):
		run.censor(reason.New(reason.BundleInvalid, "run %s has no bundle: a run counts only with its complete bundle (see its %s)", f.Source, rundir.ControllerLog))
	}
	return run, verified, nil
}

// readRun reads the evidence and provenance of a run that is no bundle,
// or whose bundle does not verify, from its files into run. A run without
// evidence comes back whole, as withoutEvidence makes it, with Evidence nil.
func readRun(f rundir.Found, run *Run) error {
	path := filepath.Join(run.Dir, rundir.EvidenceFile)
	// Only a missing evidence.json makes a run without evidence: any other
	// failure to reach it is reading's error, below, naming the file.
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		var err error
		*run, err = withoutEvidence(f)
		return err
	}
	var e evidence.Evidence
	if err := rundir.ReadJSON(path, &e); err != nil {
		return err
	}
	run.Evidence, run.prov = &e, readProvenance(run.Dir)
	return nil
}

// withoutEvidence is a run whose attempt wrote no evidence.json: censored
// by what its status.json says, else for its controller when it is a
// campaign's run, else refused. A status.json that is there but cannot be
// read (torn, edited, not JSON) is said so, never taken for a missing one.
func withoutEvidence(f rundir.Found) (Run, error) {
	st, err := rundir.ReadStatus(f.Dir)
	if err == nil {
		return Run{Path: f.Source, Censor: []reason.Reason{statusReason(f, st)}}, nil
	}
	unreadable := ""
	if !errors.Is(err, fs.ErrNotExist) {
		unreadable = fmt.Sprintf(", and its %s cannot be read (%v)", rundir.StatusFile, err)
	}
	if f.Planned != nil {
		return Run{Path: f.Source, Censor: []reason.Reason{controllerReason(f, "it wrote no "+rundir.EvidenceFile+unreadable)}}, nil
	}
	if unreadable != "" {
		return Run{}, fmt.Errorf("%s: its attempt %s has no %s%s: run the arm again", f.Source, filepath.Base(f.Dir), rundir.EvidenceFile, unreadable)
	}
	return Run{}, fmt.Errorf("%s: its attempt %s has no %s (did the run finish?)", f.Source, filepath.Base(f.Dir), rundir.EvidenceFile)
}

// statusReason is why an attempt that started never wrote evidence, as
// its status says: its controller was killed (its guard said so) or is
// still running.
func statusReason(f rundir.Found, st *rundir.Status) reason.Reason {
	rs := reason.New(reason.Interrupted, "run %s (arm %s) ended %s in phase %s without evidence", f.Source, st.Arm, st.State, st.Phase)
	if st.State == rundir.StateRunning {
		// Nobody said how it ended: its controller and its guard were
		// killed together (pkill -9 abbench), they could not write
		// its status (a full disk), or it is still running.
		rs = reason.New(reason.Interrupted, "run %s (arm %s) has no evidence and its status still says running (phase %s): its controller and its guard were killed together, or could not write its %s (a full disk), or it is still running", f.Source, st.Arm, st.Phase, rundir.StatusFile)
	}
	if len(st.Reasons) > 0 {
		rs = st.Reasons[0]
		rs.Detail = fmt.Sprintf("%s (run %s, no evidence)", rs.Detail, f.Source)
	}
	rs.Arm = st.Arm
	return rs
}

// censor adds a reason the run cannot count, naming its arm.
func (r *Run) censor(rs reason.Reason) {
	if r.Evidence != nil {
		rs.Arm = r.Evidence.Arm
	}
	r.Censor = append(r.Censor, rs)
}

// controllerReason says a campaign run's controller failed itself.
func controllerReason(f rundir.Found, what string) reason.Reason {
	pr := f.Planned
	msg := fmt.Sprintf("run %d (arm %s)", pr.Index, pr.Arm)
	if pr.Result != nil {
		msg += fmt.Sprintf(": its controller exited with status %d (%s)", pr.Result.ExitCode, pr.Result.Detail)
	}
	if what != "" {
		msg += ": " + what
	}
	return reason.New(reason.ControllerFailed, "%s; see %s", msg, filepath.Join(f.Source, rundir.ControllerLog))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// saysInterrupted says e was censored interrupted: its run was stopped.
func saysInterrupted(e *evidence.Evidence) bool {
	return e != nil && !e.Accepted && slices.ContainsFunc(e.Reasons, func(r reason.Reason) bool { return r.Code == reason.Interrupted })
}
