package armpipeline

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// ErrBundleReadOnly refuses to rewrite a bundle's evidence: it is signed as it is.
var ErrBundleReadOnly = errors.New("a bundle's evidence cannot be rewritten")

// Replay derives the evidence of the one run at from (anything
// rundir.Resolve takes) again, with s's rules as they are now; from a
// bundle, only its scoped bytes are read. With write, the attempt's
// evidence.json is replaced. dir is the attempt (or bundle) read.
func Replay(s *scenarios.Scenario, arm, from string, write bool) (ev *evidence.Evidence, dir string, err error) {
	found, cleanup, err := rundir.Resolve(from, bundle.Unpack)
	defer cleanup()
	if err != nil {
		return nil, "", err
	}
	if len(found) != 1 {
		return nil, "", fmt.Errorf("%s holds %d runs: give one run's directory", from, len(found))
	}
	dir = found[0].Dir
	if bundle.IsBundle(dir) {
		if write {
			return nil, dir, ErrBundleReadOnly
		}
		ev, err = bundle.Recollect(s, arm, dir)
	} else {
		ev, err = evidence.Collect(s, arm, dir)
	}
	if err == nil && write {
		err = WriteEvidence(dir, ev)
	}
	return ev, dir, err
}

// ArmOf is the arm of the one run at from (anything rundir.Resolve takes),
// as the run recorded it: its status.json, else (a bundle) its evidence.
func ArmOf(from string) (string, error) {
	found, cleanup, err := rundir.Resolve(from, bundle.Unpack)
	defer cleanup()
	if err != nil {
		return "", err
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%s holds %d runs: give one run's directory", from, len(found))
	}
	dir := found[0].Dir
	if st, err := rundir.ReadStatus(dir); err == nil && st.Arm != "" {
		return st.Arm, nil
	}
	var ev evidence.Evidence
	if err := rundir.ReadJSON(filepath.Join(dir, rundir.EvidenceFile), &ev); err != nil {
		return "", fmt.Errorf("%s records no arm (no %s, and %w)", from, rundir.StatusFile, err)
	}
	if ev.Arm == "" {
		return "", fmt.Errorf("%s records no arm", from)
	}
	return ev.Arm, nil
}
