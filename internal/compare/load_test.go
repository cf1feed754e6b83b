package compare

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// tornStatus writes a status.json cut short in attempt, as a disk that
// failed under a copy (or a hand that edited it) leaves it.
func tornStatus(t *testing.T, attempt string) {
	t.Helper()
	if err := os.MkdirAll(attempt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(attempt, rundir.StatusFile), []byte(`{"schema": "abbench-status-v1", "arm": "a`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableStatusIsNotAMissingOne: an attempt without evidence whose
// status.json is there but does not parse is said so, given alone (an
// error) and as a campaign's run (its censor reason): it is not taken for
// an attempt that never wrote one.
func TestUnreadableStatusIsNotAMissingOne(t *testing.T) {
	alone := filepath.Join(t.TempDir(), "attempt")
	tornStatus(t, alone)
	_, cleanup, err := LoadRuns([]string{alone}, bundle.VerifyOptions{})
	cleanup()
	if err == nil || !strings.Contains(err.Error(), rundir.StatusFile+" cannot be read") || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		t.Errorf("an attempt alone with a torn status: %v", err)
	}

	camp := t.TempDir()
	plan := &rundir.Plan{Runs: []rundir.PlannedRun{{Index: 1, Arm: "a", Dir: rundir.RunDir(camp, 1, "a")}}}
	if err := rundir.WritePlan(camp, plan); err != nil {
		t.Fatal(err)
	}
	tornStatus(t, rundir.Attempt(plan.Runs[0].Dir, "tok"))
	if err := rundir.WriteLatest(plan.Runs[0].Dir, "tok"); err != nil {
		t.Fatal(err)
	}
	runs, cleanup, err := LoadRuns([]string{camp}, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil || len(runs) != 1 || len(runs[0].Censor) != 1 {
		t.Fatalf("runs %+v, err %v", runs, err)
	}
	if rs := runs[0].Censor[0]; rs.Code != reason.ControllerFailed || !strings.Contains(rs.Detail, rundir.StatusFile+" cannot be read") {
		t.Errorf("a campaign's run with a torn status: %+v", rs)
	}
}

// TestUnreachableEvidenceIsNotAMissingOne: an evidence.json that is there
// but cannot be opened (a link to itself) is an error naming it, not an
// attempt that ended without evidence.
func TestUnreachableEvidenceIsNotAMissingOne(t *testing.T) {
	dir := t.TempDir()
	if err := rundir.WriteStatus(dir, &rundir.Status{Arm: "a", State: rundir.StateSucceeded, Phase: "teardown"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, rundir.EvidenceFile)
	if err := os.Symlink(path, path); err != nil {
		t.Fatal(err)
	}
	runs, cleanup, err := LoadRuns([]string{dir}, bundle.VerifyOptions{})
	defer cleanup()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("runs %+v, err %v: want the error reading %s", runs, err, path)
	}
}

// TestUnreadableStatusIsWarned: a run without provenance whose status.json
// does not parse has no start or duration in the report, and a warning
// says why (they are not left zero without a word).
func TestUnreadableStatusIsWarned(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {1000, 1001}, "async": {1100, 1101}})
	runs[0].Dir = filepath.Join(t.TempDir(), "attempt")
	tornStatus(t, runs[0].Dir)
	r := Compare(runs, Options{})
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "run "+runs[0].Path+": when and how long it ran is not reported") && strings.Contains(w, rundir.StatusFile)
	}
	if !found {
		t.Errorf("warnings %q say nothing of the torn %s", r.Warnings, rundir.StatusFile)
	}
}

// VerifyRuns' refusals are errors a caller can take apart: each names its
// run and code, a run that is no bundle is ErrNotBundle, a bundle that
// does not verify keeps its *bundle.VerifyError, and what a refusal says
// names the run as given, not the directory it was read from.
func TestVerifyRunsRefusalsAreTyped(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {1000}, "async": {1100}})
	runs[0].Dir = t.TempDir() // no bundle
	runs[1].Dir = filepath.Join(t.TempDir(), "unpacked")
	if err := os.MkdirAll(runs[1].Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs[1].Dir, bundle.ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := VerifyRuns(runs, bundle.VerifyOptions{AllowUnsigned: true})
	var refused *RunsRefused
	if !errors.As(err, &refused) || len(refused.Refusals) != 2 {
		t.Fatalf("err %v, want two refusals", err)
	}
	first, second := refused.Refusals[0], refused.Refusals[1]
	if first.Run != runs[0].Path || first.Code != reason.SignatureInvalid || !errors.Is(first, ErrNotBundle) {
		t.Errorf("the run that is no bundle: %+v", first)
	}
	var ve *bundle.VerifyError
	if second.Run != runs[1].Path || !errors.As(second, &ve) || ve.Bundle != runs[1].Dir {
		t.Errorf("the bundle that does not verify: %+v", second)
	}
	if msg := second.Error(); !strings.Contains(msg, runs[1].Path+": ") || strings.Contains(msg, runs[1].Dir) {
		t.Errorf("%q does not name the run as given", msg)
	}
	if !errors.Is(err, ErrNotBundle) || !strings.HasPrefix(err.Error(), "2 run(s) refused:\n"+first.Error()+"\n") {
		t.Errorf("the refusals together: %v", err)
	}
	if err := VerifyRuns(nil, bundle.VerifyOptions{}); err != nil {
		t.Errorf("no run refused: %v", err)
	}
}

// A stored baseline that holds no run is refused with ErrStoredEmpty, as
// a *StoredRefused naming it.
func TestStoredRefusedIsTyped(t *testing.T) {
	camp := t.TempDir()
	now := runsOf(map[string][]float64{"blocking": {1000}, "async": {1100}})
	if err := rundir.WritePlan(camp, &rundir.Plan{}); err != nil {
		t.Fatal(err)
	}
	_, cleanup, err := LoadStored(camp, now, bundle.VerifyOptions{})
	cleanup()
	var refused *StoredRefused
	if !errors.As(err, &refused) || refused.Path != camp || !errors.Is(err, ErrStoredEmpty) {
		t.Errorf("err %v, want the empty baseline refused", err)
	}
}
