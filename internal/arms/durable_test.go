package arms

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// durableScenario has a server and a client that ends at once.
func durableScenario(t *testing.T) *scenarios.Scenario {
	return serverScenario(t, `'echo up; exec sleep 60'`)
}

// replaceSyncPath swaps the controller's background sync for fake.
func replaceSyncPath(t *testing.T, fake func(path string) error) {
	real := syncPath
	t.Cleanup(func() { syncPath = real })
	syncPath = fake
}

// TestEndedStatusWaitsForItsFilesOnDisk: LATEST and offsets.json are
// synced in the background, and no status.json saying the run ended is
// written before both are on disk: after a crash, a run whose status
// says it ended has the attempt LATEST names and its evidence's scope.
func TestEndedStatusWaitsForItsFilesOnDisk(t *testing.T) {
	var mu sync.Mutex
	var synced, early []string
	replaceSyncPath(t, func(path string) error {
		time.Sleep(time.Second)                     // a slow disk: the run reaches its end meanwhile
		attempt := filepath.Dir(filepath.Dir(path)) // coord/offsets.json
		if filepath.Base(path) == rundir.Latest {
			attempt, _ = rundir.LatestAttempt(filepath.Dir(path))
		}
		st, err := rundir.ReadStatus(attempt)
		mu.Lock()
		defer mu.Unlock()
		if err == nil && st.State != rundir.StateRunning {
			early = append(early, filepath.Base(path))
		}
		synced = append(synced, filepath.Base(path))
		return syncPath0(path)
	})
	st := runArm(t, context.Background(), durableScenario(t), "a")
	if st.State != rundir.StateSucceeded {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(synced)
	if !slices.Equal(synced, []string{rundir.Latest, rundir.OffsetsFile}) {
		t.Errorf("synced %v, want LATEST and offsets.json", synced)
	}
	if len(early) > 0 {
		t.Errorf("the status said the run ended before %v were on disk", early)
	}
}

// TestRunFailsWhenItsFilesCannotBeSynced: a background sync that fails
// fails the run, with a write-failed reason naming the file.
func TestRunFailsWhenItsFilesCannotBeSynced(t *testing.T) {
	replaceSyncPath(t, func(path string) error {
		if filepath.Base(path) == rundir.OffsetsFile {
			return errors.New("input/output error")
		}
		return syncPath0(path)
	})
	st := runArm(t, context.Background(), durableScenario(t), "a")
	if st.State != rundir.StateFailed || codes(st) != "write-failed" || !strings.Contains(st.Reasons[0].Detail, rundir.OffsetsFile) {
		t.Fatalf("state %s, reasons %v: want failed, one write-failed naming %s", st.State, st.Reasons, rundir.OffsetsFile)
	}
	if onDisk, err := rundir.ReadStatus(st.Dir); err != nil || onDisk.State != rundir.StateFailed {
		t.Fatalf("status.json on disk: %+v, %v", onDisk, err)
	}
}

// syncPath0 is the real sync, for the fakes to call.
var syncPath0 = syncPath
