package rundir

import (
	"os"
	"testing"
)

// TestStatusSyncedWhenItSaysTheAttemptEnded: status.json is synced
// whenever it says the attempt ended; the writes of a running attempt
// (its phases) are not. A status that says how the run ended is never
// left to the page cache.
func TestStatusSyncedWhenItSaysTheAttemptEnded(t *testing.T) {
	var writes []string
	sync0, publish0 := syncFile, publishFile
	t.Cleanup(func() { syncFile, publishFile = sync0, publish0 })
	syncFile = func(path string, data []byte, perm os.FileMode) error {
		writes = append(writes, "synced")
		return sync0(path, data, perm)
	}
	publishFile = func(path string, data []byte, perm os.FileMode) error {
		writes = append(writes, "published")
		return publish0(path, data, perm)
	}
	attempt := t.TempDir()
	steps := []struct{ state, phase, want string }{
		{StateRunning, "", "published"},
		{StateRunning, "start", "published"},
		{StateRunning, "client", "published"},
		{StateSucceeded, "done", "synced"},
		{StateInterrupted, "done", "synced"}, // the guard's mark
		{StateFailed, "done", "synced"},
	}
	for i, s := range steps {
		if err := WriteStatus(attempt, &Status{State: s.state, Phase: s.phase}); err != nil {
			t.Fatal(err)
		}
		if writes[i] != s.want {
			t.Errorf("write %d (state %s, phase %q): %s, want %s", i, s.state, s.phase, writes[i], s.want)
		}
		st, err := ReadStatus(attempt)
		if err != nil || st.State != s.state || st.Phase != s.phase {
			t.Fatalf("write %d: read back %+v, %v", i, st, err)
		}
	}
}
