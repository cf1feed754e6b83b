package arms

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
)

// The live registry: every controller notes its attempt in a directory of
// this user's while it runs, and removes the note when it ends. A note
// whose controller is gone belongs to a controller that died without
// ending its run (and whose guard died too, for example with its whole
// session): the next abbench to start sweeps what that run left, by its
// token, and marks the attempt interrupted.

// liveEntry is one running attempt.
type liveEntry struct {
	Token      string `json:"token"`
	Attempt    string `json:"attempt"`
	PID        int    `json:"pid"`
	StartTicks string `json:"start_ticks"` // the controller's start time (/proc/PID/stat), against PID reuse
}

// LiveDir is where controllers note their attempts: $XDG_RUNTIME_DIR or
// the temporary directory, per user.
func LiveDir() string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, fmt.Sprintf("abbench-%d", os.Getuid()), "live")
}

func startTicks(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19] // starttime, field 22 of stat
}

// noteLive records this controller's attempt; the returned func removes
// it (also after an error, when it does nothing).
func noteLive(token, attempt string) (func(), error) {
	dir := LiveDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, err
	}
	e := liveEntry{Token: token, Attempt: attempt, PID: os.Getpid(), StartTicks: startTicks(os.Getpid())}
	data, _ := json.Marshal(e)
	path := filepath.Join(dir, token+".json")
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return func() {}, err
	}
	// A note left behind is harmless: the next sweep finds its run ended
	// and removes it.
	return func() { _ = os.Remove(path) }, nil
}

// SweepDead finds attempts whose controllers died without ending them,
// kills every process that carries their tokens, marks an attempt still
// "running" interrupted, and returns the attempts it did something for (a
// note whose run had already ended, or is gone, is only removed). An
// attempt it could not mark is in the error (a write-failed reason each);
// its note stays, for the next sweep. abbench calls it when it starts.
func SweepDead() ([]string, error) {
	dir := LiveDir()
	entries, _ := os.ReadDir(dir)
	var swept []string
	var failed reason.Error
	for _, de := range entries {
		path := filepath.Join(dir, de.Name())
		var e liveEntry
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &e) != nil || e.Token == "" {
			continue
		}
		if e.PID > 0 && startTicks(e.PID) == e.StartTicks && e.StartTicks != "" {
			continue // its controller is alive
		}
		left := len(Survivors(e.Token))
		survivorsAfter(e.Token, guardSweep)
		st, err := rundir.ReadStatus(e.Attempt)
		if err != nil || st.State != rundir.StateRunning {
			// Its guard ended the run, or the attempt is gone: a stale note.
			_ = os.Remove(path) // one left is found stale again next time
			if left > 0 {
				swept = append(swept, e.Attempt)
			}
			continue
		}
		st.State = rundir.StateInterrupted
		st.Reasons = append(st.Reasons, reason.Reason{Code: reason.Interrupted, Arm: st.Arm,
			Detail: fmt.Sprintf("the controller (pid %d) died during phase %s without ending the run; a later abbench stopped its processes", e.PID, st.Phase)})
		st.Ended = time.Now().UTC()
		if err := rundir.WriteStatus(e.Attempt, st); err != nil {
			failed.Reasons = append(failed.Reasons, reason.Reason{Code: reason.WriteFailed, Arm: st.Arm,
				Detail: fmt.Sprintf("marking the attempt interrupted: %v: it still says running; the next abbench tries again", err)})
			continue
		}
		_ = os.Remove(path) // one left is found stale next time
		swept = append(swept, e.Attempt)
	}
	if len(failed.Reasons) > 0 {
		return swept, &failed
	}
	return swept, nil
}
