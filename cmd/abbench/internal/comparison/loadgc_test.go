package comparison

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLoadingGCFollowsTheLiveHeap: while runs load, the memory limit is
// the base until the live heap passes half of it, then twice the live
// heap (a comparison holding more than the base never collects without
// end); afterwards the collector is as it was.
func TestLoadingGCFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	const base = 8 << 20
	restore := loadingGC(base)
	if got := debug.SetMemoryLimit(-1); got != base {
		t.Errorf("limit %d while loading, want %d", got, base)
	}
	if got := debug.SetGCPercent(loadingGCPercent); got != loadingGCPercent {
		t.Errorf("GOGC %d while loading, want %d", got, loadingGCPercent)
	}
	live := make([]byte, 32<<20)
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC() // the live heap is now measured
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < 2*int64(len(live)) && time.Now().Before(deadline) {
		time.Sleep(loadingPoll)
	}
	if got := debug.SetMemoryLimit(-1); got < 2*int64(len(live)) {
		t.Errorf("limit %d with %d bytes live, want at least twice that", got, len(live))
	}
	runtime.KeepAlive(live)
	restore()
	if got, gotPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(percent); got != limit || gotPercent != percent {
		t.Errorf("after loading: limit %d, GOGC %d; before: %d, %d", got, gotPercent, limit, percent)
	}
}

// TestLoadingGCLeavesTheUsersSetting: GOGC or GOMEMLIMIT in the
// environment is the user's: loading changes neither.
func TestLoadingGCLeavesTheUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(env, "100")
		limit := debug.SetMemoryLimit(-1)
		restore := loadingGC(8 << 20)
		if got := debug.SetMemoryLimit(-1); got != limit {
			t.Errorf("%s set: limit %d while loading, want %d", env, got, limit)
		}
		restore()
	}
}
