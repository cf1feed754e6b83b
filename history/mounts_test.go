package history

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
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
	const trials, perAdd = 40, 300
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
