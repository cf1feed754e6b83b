package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockNothing makes flock lock nothing for the test, as on a store shared
// through two sshfs mounts (or NFS without a lock manager), where each
// mount's flock is its own: what holds two adds apart there is the store's
// lock file and the check of the store before and after the write.
func lockNothing(t *testing.T) {
	t.Helper()
	was := flock
	flock = func(int, int) error { return nil }
	t.Cleanup(func() { flock = was })
}

// Two adds at once through two mounts of one store (a team's nightly jobs
// on two hosts) both land whole: every entry of each is in the store once,
// in every one of many trials. Before, with flock per mount, both read the
// store's end and wrote there, one over the other (6 of 6 trials on sshfs).
func TestAddsThroughTwoMountsLoseNothing(t *testing.T) {
	lockNothing(t)
	const perAdd = 300
	// Under go test -short 8 trials, not 40: the trials were most of this
	// package's quick-loop CPU; the full suite runs all of them.
	trials := 40
	if testing.Short() {
		trials = 8
	}
	for trial := range trials {
		store := filepath.Join(t.TempDir(), "h.jsonl")
		if _, _, err := Append(store, []Entry{runEntry("before", 1)}); err != nil {
			t.Fatal(err)
		}
		twoAddsAtOnce(t, store, trial, perAdd)
		entries, torn, err := Read(store)
		if err != nil || torn != "" {
			t.Fatalf("trial %d: the store reads %v, %q", trial, err, torn)
		}
		seen := map[string]int{}
		for _, e := range entries {
			seen[e.Key]++
		}
		lost := 0
		for w := range 2 {
			for i := range perAdd {
				if seen[addKey(trial, w, i)] != 1 {
					lost++
				}
			}
		}
		if lost > 0 || seen["before"] != 1 || len(entries) != 2*perAdd+1 {
			t.Fatalf("trial %d: %d of the adds' %d entries not in the store once, %d entries: an add was lost", trial, lost, 2*perAdd, len(entries))
		}
	}
}

func addKey(trial, add, i int) string { return fmt.Sprintf("t%d-w%d-%d", trial, add, i) }

// twoAddsAtOnce makes two adds of perAdd entries each into store, let go
// at one moment.
func twoAddsAtOnce(t *testing.T, store string, trial, perAdd int) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		var batch []Entry
		for i := range perAdd {
			batch = append(batch, runEntry(addKey(trial, w, i), float64(i)))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if n, _, err := Append(store, batch); err != nil || n != perAdd {
				t.Errorf("trial %d, add %d: added %d, %v; want %d", trial, w, n, err, perAdd)
			}
		}()
	}
	close(start)
	wg.Wait()
}

// Two processes adding at once, each locking nothing with flock (as two
// hosts through two sshfs mounts: each mount's flock is its own), lose
// nothing: every entry of both adds is in the store once, in every trial.
func TestAddsOfTwoProcessesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts writer processes")
	}
	const trials, perAdd = 8, 3000
	for trial := range trials {
		dir := t.TempDir()
		store, start := filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "start")
		twoWritersAtOnce(t, store, start, trial, perAdd)
		entries, torn, err := Read(store)
		if err != nil || torn != "" {
			t.Fatalf("trial %d: the store reads %v, %q", trial, err, torn)
		}
		seen := map[string]int{}
		for _, e := range entries {
			seen[e.Key]++
		}
		for w := range 2 {
			for i := range perAdd {
				if seen[addKey(trial, w, i)] != 1 {
					t.Fatalf("trial %d: entry %s of add %d is in the store %d times (%d entries): an add was lost", trial, addKey(trial, w, i), w, seen[addKey(trial, w, i)], len(entries))
				}
			}
		}
	}
}

// twoWritersAtOnce starts two writer processes of perAdd entries each
// into store, lets them go at once (the start file) and waits for both.
func twoWritersAtOnce(t *testing.T, store, start string, trial, perAdd int) {
	t.Helper()
	for w := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMountWriter$")
		cmd.Env = append(os.Environ(), "HISTORY_MOUNT_STORE="+store, "HISTORY_MOUNT_START="+start, fmt.Sprintf("HISTORY_MOUNT_ADD=%d,%d,%d", trial, w, perAdd))
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := cmd.Wait(); err != nil {
				t.Errorf("trial %d: writer %d: %v\n%s", trial, w, err, out.String())
			}
		}()
	}
	if err := os.WriteFile(start, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMountWriter is a writer of the test above: it waits (at most 30 s)
// for the start file, then makes one add with flock locking nothing.
func TestMountWriter(t *testing.T) {
	store, start, add := os.Getenv("HISTORY_MOUNT_STORE"), os.Getenv("HISTORY_MOUNT_START"), os.Getenv("HISTORY_MOUNT_ADD")
	if store == "" {
		t.Skip("a writer of TestAddsOfTwoProcessesLoseNothing")
	}
	lockNothing(t)
	var trial, w, perAdd int
	if _, err := fmt.Sscanf(add, "%d,%d,%d", &trial, &w, &perAdd); err != nil {
		t.Fatal(err)
	}
	var batch []Entry
	for i := range perAdd {
		batch = append(batch, runEntry(addKey(trial, w, i), float64(i)))
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no start in 30 s")
		}
	}
	if n, _, err := Append(store, batch); err != nil || n != perAdd {
		t.Fatalf("added %d, %v; want %d", n, err, perAdd)
	}
}
