package armpipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteJSON(path, v); err != nil {
		t.Fatal(err)
	}
}

// A stage names its run by index: it gets the plan's arm for it and the
// reference its provenance signs, and an index the plan does not list is
// refused with the plan's range.
func TestPlannedArm(t *testing.T) {
	dir := t.TempDir()
	p := &rundir.Plan{Scenario: "quickstart", MatchedDigest: "abc", Order: "abba", Seed: 7,
		Runs: []rundir.PlannedRun{{Index: 1, Arm: "async"}, {Index: 2, Arm: "blocking"}}}
	if err := rundir.WritePlan(dir, p); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, rundir.PlanFile)
	ref, arm, err := PlannedArm(planFile, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := p.Ref(2); arm != "blocking" || ref.Index != 2 || ref.PlanDigest != want.PlanDigest || ref.MatchedDigest != "abc" {
		t.Errorf("run 2: arm %q, ref %+v; want blocking and the plan's digest %s", arm, ref, want.PlanDigest)
	}
	if _, _, err := PlannedArm(planFile, 3); err == nil || !strings.Contains(err.Error(), "lists no run 3 (its runs are 1 to 2)") {
		t.Errorf("run 3 of a plan of 2: %v", err)
	}
	if _, _, err := PlannedArm(filepath.Join(dir, "missing.json"), 1); err == nil {
		t.Error("a missing plan was read")
	}
}

// ArmOf takes the arm a run recorded: its status, else its bundle's
// evidence; a run that records none, or a path of several runs, is refused.
func TestArmOf(t *testing.T) {
	root := t.TempDir()
	attempt := filepath.Join(root, "attempt")
	writeJSON(t, filepath.Join(attempt, rundir.StatusFile), rundir.Status{Arm: "async"})
	onlyEvidence := filepath.Join(root, "bundle")
	writeJSON(t, filepath.Join(onlyEvidence, rundir.EvidenceFile), evidence.Evidence{Arm: "blocking"})
	noArm := filepath.Join(root, "no-arm")
	writeJSON(t, filepath.Join(noArm, rundir.EvidenceFile), evidence.Evidence{})
	camp := filepath.Join(root, "campaign")
	if err := os.Mkdir(camp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WritePlan(camp, &rundir.Plan{Runs: []rundir.PlannedRun{{Index: 1, Arm: "async"}, {Index: 2, Arm: "blocking"}}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, arm, err string }{
		{attempt, "async", ""},
		{onlyEvidence, "blocking", ""},
		{noArm, "", "records no arm"},
		{camp, "", "holds 2 runs: give one run's directory"},
		{filepath.Join(root, "nothing"), "", "does not exist"},
	} {
		arm, err := ArmOf(c.from)
		if c.err == "" && (err != nil || arm != c.arm) {
			t.Errorf("%s: arm %q, err %v; want %q", c.from, arm, err, c.arm)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: arm %q, err %v; want an error saying %q", c.from, arm, err, c.err)
		}
	}
}

// Replay --write replaces an attempt's evidence with what the rules derive
// now, and never touches a bundle's: it is signed as it is.
func TestReplayWritesAnAttemptNeverABundle(t *testing.T) {
	s, err := scenarios.Load("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	attempt := filepath.Join(root, "attempt")
	writeJSON(t, filepath.Join(attempt, rundir.StatusFile), rundir.Status{Arm: "async", Dir: attempt})
	ev, dir, err := Replay(s, "async", attempt, true)
	if err != nil {
		t.Fatal(err)
	}
	var written evidence.Evidence
	if err := rundir.ReadJSON(filepath.Join(attempt, rundir.EvidenceFile), &written); err != nil {
		t.Fatalf("replay --write left no evidence: %v", err)
	}
	if dir != attempt || written.Arm != "async" || written.Accepted || written.Accepted != ev.Accepted || len(written.Reasons) != len(ev.Reasons) {
		t.Errorf("replay of an attempt with no logs: dir %s, returned %+v, written %+v; want the same censored evidence", dir, ev, written)
	}

	b := filepath.Join(root, "bundle")
	signed := evidence.Evidence{Arm: "async", Accepted: true}
	writeJSON(t, filepath.Join(b, rundir.EvidenceFile), signed)
	writeJSON(t, filepath.Join(b, bundle.ManifestFile), map[string]string{})
	before, err := os.ReadFile(filepath.Join(b, rundir.EvidenceFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Replay(s, "async", b, true); !errors.Is(err, ErrBundleReadOnly) {
		t.Errorf("replay --write of a bundle: %v, want ErrBundleReadOnly", err)
	}
	after, err := os.ReadFile(filepath.Join(b, rundir.EvidenceFile))
	if err != nil || string(after) != string(before) {
		t.Errorf("replay --write changed a bundle's evidence (err %v)", err)
	}
}
