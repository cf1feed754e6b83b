package arms

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// The live registry: every controller notes its attempt in a directory of
// this user's while it runs, and removes the note when it ends. A note
// whose controller is gone belongs to a controller that died without
// ending its run (and whose guard died too, for example with its whole
// session): the next abbench to start sweeps what that run left, by its
// token, and marks the attempt interrupted.
//
// What a note makes abbench do (kill processes, rewrite a status) is only
// done for notes nobody else could have written: the directory must be
// private to this user (guarded.PrivateDir), a note owned by this user,
// its attempt a directory of this user's whose status names the same
// token, and its controller's pid must mean here what it meant there (the
// same pid namespace, on the same booted host). Notes are named by a hash
// of their token, so listing the directory reveals no run's token.

// liveEntry is one running attempt.
type liveEntry struct {
	Token      string `json:"token"`
	Attempt    string `json:"attempt"`
	PID        int    `json:"pid"`
	StartTicks string `json:"start_ticks"` // the controller's start time (/proc/PID/stat), against PID reuse
	livePlace
}

// livePlace is where a pid names a process: its pid namespace, on a host
// as booted (a temporary directory can be shared by a host and its
// containers, or by hosts).
type livePlace struct {
	PIDNamespace string `json:"pid_namespace"` // readlink /proc/self/ns/pid
	BootID       string `json:"boot_id"`       // /proc/sys/kernel/random/boot_id
	Host         string `json:"host"`
}

// herePlace is this process's place; a field it cannot read stays empty.
func herePlace() livePlace {
	var p livePlace
	p.PIDNamespace, _ = os.Readlink("/proc/self/ns/pid")
	if id, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		p.BootID = strings.TrimSpace(string(id))
	}
	p.Host, _ = os.Hostname()
	return p
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

// openLive opens the live registry, creating it private to this user, and
// refuses one another user made or may write.
func openLive() (*os.Root, error) {
	dir := LiveDir()
	parent, err := guarded.PrivateDir(filepath.Dir(dir))
	if err == nil {
		readonly.Close(parent)
		var live *os.Root
		if live, err = guarded.PrivateDir(dir); err == nil {
			return live, nil
		}
	}
	return nil, fmt.Errorf("the registry of running abbench controllers: %w; or set XDG_RUNTIME_DIR to a directory only you can write", err)
}

// noteName is the note of token's attempt: a hash, so a listing of the
// registry names no token.
func noteName(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:16]) + ".json"
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

// noteLive records this controller's attempt in the registry live; the
// returned func removes the note.
func noteLive(live *os.Root, token, attempt string) (func(), error) {
	e := liveEntry{Token: token, Attempt: attempt, PID: os.Getpid(), StartTicks: startTicks(os.Getpid()), livePlace: herePlace()}
	data, _ := json.Marshal(e)
	name := noteName(token)
	if err := writeNote(live, name, data); err != nil {
		return nil, fmt.Errorf("noting the run in the registry of running controllers %s: %w", live.Name(), err)
	}
	// A note left behind is harmless: the next sweep finds its run ended
	// and removes it.
	return func() { _ = live.Remove(name) }, nil
}

// writeNote replaces name in live atomically: a temporary file renamed
// into place, so a sweep never reads half a note.
func writeNote(live *os.Root, name string, data []byte) error {
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	tmp := "." + name + ".tmp-" + hex.EncodeToString(b[:])
	f, err := live.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = live.Rename(tmp, name)
	}
	if err != nil {
		_ = live.Remove(tmp) // best effort: a leftover .tmp is never read as a note
	}
	return err
}

// readNote reads a note of the registry: only a regular file this user
// owns, never through a link.
func readNote(live *os.Root, name string) (liveEntry, bool) {
	var e liveEntry
	f, err := guarded.Open(live, name)
	if err != nil {
		return e, false
	}
	defer func() { _ = f.Close() }() // read only
	fi, err := f.Stat()
	if err != nil || guarded.Owner(fi) != os.Geteuid() {
		return e, false
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil || json.Unmarshal(data, &e) != nil || e.Token == "" {
		return e, false
	}
	return e, true
}

// ownAttempt says whether the attempt a note names is one this user's
// controller could have written: an absolute directory named by the token
// (rundir.Attempt), owned by this user, whose status names the same token.
func ownAttempt(e liveEntry) bool {
	if !filepath.IsAbs(e.Attempt) || filepath.Base(e.Attempt) != e.Token {
		return false
	}
	fi, err := os.Lstat(e.Attempt)
	if err != nil || !fi.IsDir() || guarded.Owner(fi) != os.Geteuid() {
		return false
	}
	st, err := rundir.ReadStatus(e.Attempt)
	return err == nil && st.Token == e.Token
}

// SweepDead finds attempts whose controllers died without ending them,
// kills every process that carries their tokens, marks an attempt still
// "running" interrupted, and returns the attempts it did something for (a
// note whose run had already ended is only removed, and so is one whose
// attempt is gone or is not this user's). A note of another pid namespace
// or host is left alone: its pid means nothing here. abbench calls it when
// it starts; the error says the registry is not private to this user.
func SweepDead() ([]string, error) {
	live, err := openLive()
	if err != nil {
		return nil, err
	}
	defer func() { _ = live.Close() }() // a directory, read only
	d, err := live.Open(".")
	if err != nil {
		return nil, err
	}
	names, _ := d.Readdirnames(-1) // an unreadable registry holds no note to judge
	_ = d.Close()
	here := herePlace()
	if here.PIDNamespace == "" || here.BootID == "" {
		return nil, nil // no note can be placed: judge none
	}
	var swept []string
	var failed reason.Error
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		e, ok := readNote(live, name)
		if !ok || e.livePlace != here {
			continue // not this user's, or another namespace's or host's
		}
		if e.PID > 0 && startTicks(e.PID) == e.StartTicks && e.StartTicks != "" {
			continue // its controller is alive
		}
		if !ownAttempt(e) {
			_ = live.Remove(name) // the attempt is gone, or was never this controller's; one left is judged so again
			continue
		}
		left := len(Survivors(e.Token))
		survivorsAfter(e.Token, 0, guardSweep)
		st, err := rundir.ReadStatus(e.Attempt) // as the sweep left it: a dying guard may have ended it
		if err == nil && len(st.Containers) > 0 {
			containers.RemoveRun(container.Docker{}, e.Token) // best effort: its processes are killed; what its containers left goes too
		}
		if err != nil || st.State != rundir.StateRunning {
			// Its guard ended the run: a stale note.
			_ = live.Remove(name) // one left is found stale again next time
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
			// The note stays, for the next sweep.
			failed.Reasons = append(failed.Reasons, reason.Reason{Code: reason.WriteFailed, Arm: st.Arm,
				Detail: fmt.Sprintf("marking the attempt interrupted: %v: it still says running; the next abbench tries again", err)})
			continue
		}
		_ = live.Remove(name) // one left is found stale next time
		swept = append(swept, e.Attempt)
	}
	if len(failed.Reasons) > 0 {
		return swept, &failed
	}
	return swept, nil
}
