package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
			if n, _, err := Append(store, batch); err != nil || n != 50 {
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
	if n, _, err := Append(store, batch); n != 2 || err != nil {
		t.Fatalf("first add: %d %v", n, err)
	}
	if n, _, err := Append(store, append(batch, runEntry("c", 3))); n != 1 || err != nil {
		t.Fatalf("second add: %d %v, want 1 (c only)", n, err)
	}
}

// A line cut short by a writer that died is no entry, even where it is a
// whole entry but for its newline: readers skip it with a note, and the
// next add removes it (never closes it into a line) and judges which keys
// are stored by the complete lines alone.
func TestTornTailIsSkippedThenRemoved(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	if _, _, err := Append(store, []Entry{runEntry("a", 1)}); err != nil {
		t.Fatal(err)
	}
	clean := readFile(t, store)
	whole := lineOf(t, runEntry("c", 3))
	for _, tail := range []string{`{"schema":"abbench-history-v1","kind":"run","ke`, strings.TrimSuffix(whole, "\n")} {
		writeFile(t, store, clean+tail)
		entries, torn, err := Read(store)
		if err != nil || len(entries) != 1 || !strings.Contains(torn, "h.jsonl:2: an unfinished last line") {
			t.Fatalf("Read with tail %q = %d entries, %q, %v", tail, len(entries), torn, err)
		}
		n, removed, err := Append(store, []Entry{runEntry("c", 3)})
		if err != nil || n != 1 || !strings.Contains(removed, "h.jsonl:2: an unfinished last line") {
			t.Fatalf("Append after tail %q = %d, %q, %v; want 1 added and the tail removed", tail, n, removed, err)
		}
		if got := readFile(t, store); got != clean+whole {
			t.Fatalf("store after the add:\n%s\nwant the complete lines and c's line only:\n%s", got, clean+whole)
		}
		if entries, torn, err := Read(store); err != nil || torn != "" || len(entries) != 2 {
			t.Fatalf("Read after the add = %d entries, %q, %v", len(entries), torn, err)
		}
	}
	// Nothing to add: the tail is removed all the same.
	writeFile(t, store, clean+"{\"sch")
	if n, removed, err := Append(store, []Entry{runEntry("a", 1)}); err != nil || n != 0 || removed == "" {
		t.Fatalf("Append of a stored key = %d, %q, %v", n, removed, err)
	}
	if got := readFile(t, store); got != clean {
		t.Fatalf("store = %q, want %q", got, clean)
	}
}

// A damaged complete line is an error naming the file and line and how to
// mend it; an add refuses the store and changes nothing.
func TestDamagedLineInTheMiddle(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	writeFile(t, store, lineOf(t, runEntry("a", 1))+`{"schema":"abbench-history-v1","kind":"run","ke`+"\n"+lineOf(t, runEntry("b", 2)))
	before := readFile(t, store)
	_, _, err := Read(store)
	if err == nil || !strings.Contains(err.Error(), "h.jsonl:2: not a history entry") || !strings.Contains(err.Error(), "sed -i '2d' "+store) {
		t.Fatalf("Read: %v, want h.jsonl:2 named and the line to delete", err)
	}
	if _, _, err := Append(store, []Entry{runEntry("c", 3)}); err == nil || !strings.Contains(err.Error(), "h.jsonl:2") {
		t.Fatalf("Append to a damaged store: %v", err)
	}
	if after := readFile(t, store); after != before {
		t.Fatal("a failed Append changed the store")
	}
}

// failingFile is a store on a disk that holds no byte past limit (a full
// disk: bytes the file holds already can be written over), or whose sync
// fails.
type failingFile struct {
	*os.File
	limit    int64
	failSync bool
}

func (f *failingFile) WriteAt(b []byte, off int64) (int, error) {
	if off+int64(len(b)) <= f.limit {
		return f.File.WriteAt(b, off)
	}
	n, _ := f.File.WriteAt(b[:max(0, f.limit-off)], off)
	return n, syscall.ENOSPC
}

func (f *failingFile) Sync() error {
	if f.failSync {
		f.failSync = false // the sync of the restored store works
		return syscall.EIO
	}
	return f.File.Sync()
}

// A write cut short or a failed sync leaves the store byte for byte as it
// was, an unfinished last line included.
func TestFailedWriteLeavesTheStoreAsItWas(t *testing.T) {
	lines := lineOf(t, runEntry("b", 2)) + lineOf(t, runEntry("c", 3))
	for _, tc := range []struct {
		name     string
		tail     string
		room     int
		failSync bool
	}{
		{"short write", "", 10, false},
		{"short write over a torn tail", `{"schema":"abb`, 20, false},
		{"nothing written", `{"schema":"abb`, 0, false},
		{"sync fails", `{"schema":"abb`, 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "h.jsonl")
			old := lineOf(t, runEntry("a", 1)) + tc.tail
			writeFile(t, store, old)
			f, err := os.OpenFile(store, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = replaceTail(&failingFile{File: f, limit: int64(len(old) + tc.room), failSync: tc.failSync}, store, int64(len(old)-len(tc.tail)), []byte(tc.tail), []byte(lines))
			if err == nil || !strings.Contains(err.Error(), "the store is as it was") {
				t.Fatalf("replaceTail: %v", err)
			}
			if got := readFile(t, store); got != old {
				t.Fatalf("store after the failed write = %q, want %q", got, old)
			}
		})
	}
}

func lineOf(t *testing.T, e Entry) string {
	t.Helper()
	e.Schema = Schema
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
