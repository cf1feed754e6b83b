package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// armOut lays out an abbench arm --out directory with attempts; the last is LATEST.
func armOut(t *testing.T, dir string, withBundle bool, tokens ...string) {
	t.Helper()
	for _, tok := range tokens {
		touch(t, filepath.Join(Attempt(dir, tok), StatusFile))
		touch(t, filepath.Join(Attempt(dir, tok), EvidenceFile))
		if withBundle {
			touch(t, filepath.Join(Attempt(dir, tok), BundleDir, EvidenceFile))
		}
		if err := WriteLatest(dir, tok); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	arm := filepath.Join(root, "arm")
	armOut(t, arm, true, "t1", "t2")
	bare := filepath.Join(root, "bare")
	armOut(t, bare, false, "only")
	camp := filepath.Join(root, "camp")
	plan := &Plan{}
	for i, arm := range []string{"a", "b", "a", "b", "a", "b", "a", "b", "a", "b"} {
		plan.Runs = append(plan.Runs, PlannedRun{Index: i + 1, Arm: arm, Dir: RunDir(camp, i+1, arm)})
	}
	os.MkdirAll(camp, 0o755)
	WritePlan(camp, plan)
	for _, r := range plan.Runs {
		armOut(t, r.Dir, false, "tok")
	}
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)

	cases := []struct {
		name, path string
		dirs       []string // Found.Dir relative to root
		bundles    []string
		err        string
	}{
		{"arm out: newest attempt, through its bundle", arm, []string{"arm/t2"}, []string{"arm/t2/bundle"}, ""},
		{"arm out without a bundle", bare, []string{"bare/only"}, []string{""}, ""},
		{"attempt directory", filepath.Join(arm, "t1"), []string{"arm/t1"}, []string{"arm/t1/bundle"}, ""},
		{"bundle directory", filepath.Join(arm, "t1", BundleDir), []string{"arm/t1/bundle"}, []string{""}, ""},
		{"campaign in plan order", camp, []string{"camp/runs/1-a/tok", "camp/runs/2-b/tok", "camp/runs/3-a/tok", "camp/runs/4-b/tok", "camp/runs/5-a/tok",
			"camp/runs/6-b/tok", "camp/runs/7-a/tok", "camp/runs/8-b/tok", "camp/runs/9-a/tok", "camp/runs/10-b/tok"}, []string{"", "", "", "", "", "", "", "", "", ""}, ""},
		{"missing", filepath.Join(root, "nope"), nil, nil, "does not exist"},
		{"no run", empty, nil, nil, "holds no status.json, evidence.json, LATEST or plan.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found, cleanup, err := Resolve(c.path, nil)
			defer cleanup()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(found) != len(c.dirs) {
				t.Fatalf("found %d attempts, want %d: %+v", len(found), len(c.dirs), found)
			}
			for i, f := range found {
				rel, _ := filepath.Rel(root, f.Dir)
				brel := ""
				if f.Bundle != "" {
					brel, _ = filepath.Rel(root, f.Bundle)
				}
				if rel != c.dirs[i] || brel != c.bundles[i] {
					t.Errorf("attempt %d: dir %s bundle %q, want %s %q", i, rel, brel, c.dirs[i], c.bundles[i])
				}
			}
		})
	}
}

func TestResolveLatestRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []string{"../elsewhere", "..", "", "a/b"} {
		os.WriteFile(filepath.Join(dir, Latest), []byte(bad+"\n"), 0o644)
		if _, _, err := Resolve(dir, nil); err == nil || !strings.Contains(err.Error(), "is not a token") {
			t.Errorf("LATEST %q: err %v, want a refusal", bad, err)
		}
	}
}

func TestResolveArchive(t *testing.T) {
	var unpackedTo string
	unpack := func(archive, dir string) error {
		unpackedTo = dir
		touch(t, filepath.Join(dir, EvidenceFile))
		return nil
	}
	found, cleanup, err := Resolve("run.tar.gz", unpack)
	if err != nil || len(found) != 1 || found[0].Dir != unpackedTo || found[0].Bundle != unpackedTo || found[0].Source != "run.tar.gz" {
		t.Fatalf("found %+v, err %v", found, err)
	}
	cleanup()
	if _, err := os.Stat(unpackedTo); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cleanup left %s", unpackedTo)
	}
	if _, _, err := Resolve("run.tgz", func(string, string) error { return errors.New("gzip: invalid header") }); err == nil {
		t.Fatal("an archive that does not unpack resolved")
	}
}

// A campaign is whole or censored: a planned run whose directory was
// deleted, one that never ran, and a run directory the plan does not list
// come back with a Problem, never silently dropped or added.
func TestResolveCampaignMissingAndExtraRuns(t *testing.T) {
	camp := t.TempDir()
	ran := &Outcome{State: "succeeded"}
	plan := &Plan{Runs: []PlannedRun{{Index: 1, Arm: "a", Result: ran}, {Index: 2, Arm: "b", Result: ran}, {Index: 3, Arm: "a", Result: ran}, {Index: 4, Arm: "b"}}}
	for i := range plan.Runs[:3] {
		plan.Runs[i].Dir = RunDir(camp, plan.Runs[i].Index, plan.Runs[i].Arm)
		armOut(t, plan.Runs[i].Dir, false, "tok")
	}
	WritePlan(camp, plan)
	os.RemoveAll(plan.Runs[1].Dir)
	armOut(t, RunDir(camp, 9, "b"), false, "tok")
	found, _, err := Resolve(camp, nil)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, f := range found {
		if f.Problem != "" {
			problems = append(problems, f.Problem)
		}
	}
	if len(found) != 5 || len(problems) != 3 || !strings.Contains(problems[0], "run 2 (arm b) of the plan: its directory is gone") ||
		!strings.Contains(problems[1], "run 4 (arm b) of the plan: it never ran") || !strings.Contains(problems[2], "9-b is not a run of the campaign") {
		t.Fatalf("found %+v", found)
	}
	if found[0].Planned == nil || found[0].Planned.Index != 1 {
		t.Fatalf("run 1 lost its plan entry: %+v", found[0])
	}
}

// A planned run whose LATEST is there but names no token is said so, not
// taken for a run that left no attempt.
func TestResolveCampaignSaysAnUnreadableLatest(t *testing.T) {
	camp := t.TempDir()
	plan := &Plan{Runs: []PlannedRun{{Index: 1, Arm: "a", Dir: RunDir(camp, 1, "a"), Result: &Outcome{State: "succeeded"}}}}
	if err := WritePlan(camp, plan); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(plan.Runs[0].Dir, Latest))
	if err := os.WriteFile(filepath.Join(plan.Runs[0].Dir, Latest), []byte("../elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	found, _, err := Resolve(camp, nil)
	if err != nil || len(found) != 1 {
		t.Fatalf("found %+v, err %v", found, err)
	}
	if p := found[0].Problem; !strings.Contains(p, "its newest attempt cannot be found") || !strings.Contains(p, "is not a token") || strings.Contains(p, "is missing") {
		t.Errorf("problem %q", p)
	}
}

// A campaign whose runs/ cannot be listed is an error: unlisted, a run
// directory the plan does not name would pass unseen.
func TestResolveCampaignRefusesUnlistableRuns(t *testing.T) {
	camp := t.TempDir()
	if err := WritePlan(camp, &Plan{}); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(camp, RunsDir)) // a file where the directory should be
	if found, _, err := Resolve(camp, nil); err == nil || !strings.Contains(err.Error(), filepath.Join(camp, RunsDir)) {
		t.Errorf("found %+v, err %v: want the error listing %s", found, err, RunsDir)
	}
}
