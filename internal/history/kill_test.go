package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// An add killed (SIGKILL) at any moment of its write leaves a store that
// reads: every entry it held, then whole lines of the add or none, and at
// most an unfinished last line, which the next add removes.
func TestAddKilledMidWriteLeavesAReadableStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills writers")
	}
	store := filepath.Join(t.TempDir(), "h.jsonl")
	var first []Entry
	for i := range 100 {
		first = append(first, runEntry(fmt.Sprintf("first-%d", i), float64(i)))
	}
	if _, _, err := Append(store, first); err != nil {
		t.Fatal(err)
	}
	cut := 0
	for kill := range 6 {
		before, err := os.Stat(store)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledAddWriter$")
		cmd.Env = append(os.Environ(), "HISTORY_KILLED_ADD_STORE="+store, fmt.Sprintf("HISTORY_KILLED_ADD_ROUND=%d", kill))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForGrowth(t, store, before.Size())
		time.Sleep(time.Duration(kill) * 3 * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		entries, torn, err := Read(store)
		if torn != "" {
			cut++
		}
		if err != nil {
			t.Fatalf("kill %d: the store does not read: %v", kill, err)
		}
		for i, e := range first {
			if entries[i].Key != e.Key {
				t.Fatalf("kill %d: entry %d is %q, want %q", kill, i, entries[i].Key, e.Key)
			}
		}
		if _, _, err := Append(store, []Entry{runEntry(fmt.Sprintf("after-kill-%d", kill), 1)}); err != nil {
			t.Fatalf("kill %d: the next add: %v", kill, err)
		}
		if _, torn, err := Read(store); err != nil || torn != "" {
			t.Fatalf("kill %d: after the next add: %v, %q", kill, err, torn)
		}
	}
	t.Logf("%d of 6 kills cut a line short", cut)
}

// waitForGrowth waits (at most 30 s) until the store is larger than size:
// the writer has begun.
func waitForGrowth(t *testing.T, store string, size int64) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, err := os.Stat(store); err == nil && st.Size() > size {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer wrote nothing in 30 s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestKilledAddWriter is the writer the test above kills: adds of 5,000
// entries each (2.5 MiB of lines), one after another, until it is killed
// (or has made 100).
func TestKilledAddWriter(t *testing.T) {
	store := os.Getenv("HISTORY_KILLED_ADD_STORE")
	if store == "" {
		t.Skip("the writer of TestAddKilledMidWriteLeavesAReadableStore")
	}
	round := os.Getenv("HISTORY_KILLED_ADD_ROUND")
	for batch := range 100 {
		var entries []Entry
		for i := range 5000 {
			e := runEntry(fmt.Sprintf("r%s-b%d-%d", round, batch, i), float64(i))
			e.Machine = "1x AMD EPYC 9654 96-Core Processor + 8x NVIDIA H100 80GB HBM3"
			entries = append(entries, e)
		}
		if _, _, err := Append(store, entries); err != nil {
			t.Fatal(err)
		}
	}
}
