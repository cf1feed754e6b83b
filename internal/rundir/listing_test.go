package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Which run a path holds is told by one listing of it; a symbolic link
// there is still followed as a stat follows it: one that leads to the
// file counts, one that leads nowhere is a missing file.
func TestResolveListingFollowsLinksAndRefusesDanglingOnes(t *testing.T) {
	root := t.TempDir()
	camp := filepath.Join(root, "camp")
	plan := &Plan{Runs: []PlannedRun{{Index: 1, Arm: "a", Dir: RunDir(camp, 1, "a")}}}
	if err := os.MkdirAll(camp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(camp, plan); err != nil {
		t.Fatal(err)
	}
	armOut(t, plan.Runs[0].Dir, false, "tok")
	linked := filepath.Join(root, "linked")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(camp, PlanFile), filepath.Join(linked, PlanFile)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(camp, RunsDir), filepath.Join(linked, RunsDir)); err != nil {
		t.Fatal(err)
	}
	found, _, err := Resolve(linked, nil)
	if err != nil || len(found) != 1 || found[0].Problem != "" || filepath.Base(found[0].Dir) != "tok" {
		t.Fatalf("a campaign whose plan.json is a link: found %+v, err %v", found, err)
	}
	dangling := filepath.Join(root, "dangling")
	if err := os.Mkdir(dangling, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{StatusFile, EvidenceFile, Latest, PlanFile} {
		if err := os.Symlink(filepath.Join(root, "nowhere", name), filepath.Join(dangling, name)); err != nil {
			t.Fatal(err)
		}
	}
	if found, _, err := Resolve(dangling, nil); err == nil || !strings.Contains(err.Error(), "holds no status.json, evidence.json, LATEST or plan.json") {
		t.Fatalf("links that lead nowhere: found %+v, err %v, want the path refused as holding no run", found, err)
	}
	file := filepath.Join(root, "file")
	touch(t, file)
	if _, _, err := Resolve(file, nil); err == nil || !strings.Contains(err.Error(), "holds no") {
		t.Fatalf("a file given as the path: err %v, want it refused as holding no run", err)
	}
}

// LATEST (and plan.json) are read as regular files: a FIFO in LATEST's
// place is refused at once, never waited on for a writer (one comes after
// 5 s, so that a read that waits ends, and fails here).
func TestResolveRefusesALatestThatIsNoRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, Latest)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	writer := time.AfterFunc(5*time.Second, func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_ = f.Close()
		}
	})
	defer writer.Stop()
	_, _, err := Resolve(dir, nil)
	if !writer.Stop() {
		t.Fatal("resolving waited on a FIFO in LATEST's place")
	}
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("err %v, want LATEST refused as no regular file", err)
	}
}
