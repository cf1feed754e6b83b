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
	touch(t, filepath.Join(camp, PlanFile))
	// Run 10 sorts after run 9, not after run 1.
	for _, r := range []struct {
		i   int
		arm string
	}{{10, "b"}, {9, "a"}, {1, "a"}, {2, "b"}} {
		armOut(t, RunDir(camp, r.i, r.arm), false, "tok")
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
		{"campaign in run order", camp, []string{"camp/runs/1-a/tok", "camp/runs/2-b/tok", "camp/runs/9-a/tok", "camp/runs/10-b/tok"}, []string{"", "", "", ""}, ""},
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
