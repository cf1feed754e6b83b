package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func runEntry(key string, v float64) Entry {
	return Entry{Kind: KindRun, Key: key, Scenario: "s", Arm: "a", Metric: "m", Value: &v, Time: time.Unix(int64(len(key)), 0)}
}

// Concurrent adds from separate writers (as CI jobs finishing together)
// lose no line and interleave none: every line parses, every key is there
// once.
func TestAppendConcurrent(t *testing.T) {
	store := filepath.Join(t.TempDir(), "history.jsonl")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var batch []Entry
			for i := range 50 {
				batch = append(batch, runEntry(fmt.Sprintf("w%d-%d", w, i), float64(i)))
			}
			if n, err := Append(store, batch); err != nil || n != 50 {
				t.Errorf("writer %d: added %d, %v", w, n, err)
			}
		}()
	}
	wg.Wait()
	entries, torn, err := Read(store)
	if err != nil || torn != "" {
		t.Fatalf("Read: %v %q", err, torn)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.Key] {
			t.Fatalf("key %s twice", e.Key)
		}
		seen[e.Key] = true
	}
	if len(seen) != 400 {
		t.Fatalf("%d entries, want 400", len(seen))
	}
}

// Adding the same runs again adds nothing: a re-run CI job does not
// duplicate points.
func TestAppendSkipsKnownKeys(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	batch := []Entry{runEntry("a", 1), runEntry("b", 2)}
	if n, err := Append(store, batch); n != 2 || err != nil {
		t.Fatalf("first add: %d %v", n, err)
	}
	if n, err := Append(store, append(batch, runEntry("c", 3))); n != 1 || err != nil {
		t.Fatalf("second add: %d %v, want 1 (c only)", n, err)
	}
}

// A line cut short by a writer that died is ignored with a note and closed
// by the next add, whose lines stay whole; a damaged line inside the store
// is an error naming file and line, and nothing is appended after it.
func TestTornAndDamagedLines(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	if _, err := Append(store, []Entry{runEntry("a", 1)}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(store, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema":"abbench-history-v1","kind":"run","ke`)
	f.Close()
	entries, torn, err := Read(store)
	if err != nil || len(entries) != 1 || !strings.Contains(torn, "h.jsonl:2: an unfinished line") {
		t.Fatalf("Read = %d entries, %q, %v", len(entries), torn, err)
	}
	if _, err := Append(store, []Entry{runEntry("b", 2)}); err != nil {
		t.Fatal(err)
	}
	// The torn line is now closed: a damaged line in the middle.
	before, _ := os.ReadFile(store)
	_, _, err = Read(store)
	if err == nil || !strings.Contains(err.Error(), "h.jsonl:2: not a history entry") {
		t.Fatalf("Read after the next add: %v, want h.jsonl:2 named", err)
	}
	if _, err := Append(store, []Entry{runEntry("c", 3)}); err == nil {
		t.Fatal("Append to a damaged store succeeded")
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Fatal("a failed Append changed the store")
	}
}
