package history

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shortLease makes the lock file's lease short for a test.
func shortLease(t *testing.T, l time.Duration) {
	t.Helper()
	was, wasRenew := lease, renewEvery
	lease, renewEvery = l, l/6
	t.Cleanup(func() { lease, renewEvery = was, wasRenew })
}

// writeOwner writes a lock file for store as o's.
func writeOwner(t *testing.T, store string, o owner) {
	t.Helper()
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(store+LockSuffix, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A lock file left by an add of this host that is gone (killed) is broken
// at once; one of another host only once it has stood unrenewed for its
// lease, on the breaker's own clock; and the store's lock file is gone
// after an add.
func TestStaleLocksAreBrokenOnlyPastTheirLease(t *testing.T) {
	shortLease(t, 600*time.Millisecond)
	store := filepath.Join(t.TempDir(), "h.jsonl")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := newOwner()
	dead.PID, dead.Start = gone.Process.Pid, "1"
	writeOwner(t, store, dead)
	begin := time.Now()
	if _, _, err := Append(store, []Entry{runEntry("a", 1)}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > lease/2 {
		t.Errorf("the lock of a process gone from this host was broken after %s, want at once", took)
	}
	if _, err := os.Lstat(store + LockSuffix); !os.IsNotExist(err) {
		t.Errorf("the add left its lock file: %v", err)
	}
	far := newOwner()
	far.Host, far.Expires = "another-host", time.Now().Add(-time.Hour) // its clock says nothing to this host
	writeOwner(t, store, far)
	begin = time.Now()
	if _, _, err := Append(store, []Entry{runEntry("b", 1)}); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took < lease {
		t.Errorf("another host's lock was broken after %s, before its lease of %s passed unrenewed", took, lease)
	}
}

// A lock held longer than its lease is renewed and never broken: an add
// meanwhile waits until it is released, and its holder still holds it.
func TestHeldLockIsRenewedNotBroken(t *testing.T) {
	shortLease(t, 300*time.Millisecond)
	store := filepath.Join(t.TempDir(), "h.jsonl")
	held, err := lockFile(store)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Time)
	go func() {
		if _, _, err := Append(store, []Entry{runEntry("a", 1)}); err != nil {
			t.Error(err)
		}
		done <- time.Now()
	}()
	time.Sleep(4 * lease)
	if err := held.check(); err != nil {
		t.Fatalf("held for 4 leases: %v", err)
	}
	released := time.Now()
	held.release()
	if at := <-done; at.Before(released) {
		t.Errorf("the add wrote %s before the holder released its lock", released.Sub(at))
	}
}

// An add whose lock another writer took (it was stopped past its lease)
// writes nothing: LostLockError.
func TestLostLockIsKnown(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	held, err := lockFile(store)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	if err := os.Rename(store+LockSuffix, store+".moved"); err != nil {
		t.Fatal(err)
	}
	writeOwner(t, store, newOwner())
	var lost *LostLockError
	if err := held.check(); !errors.As(err, &lost) {
		t.Fatalf("check after another writer took the lock: %v, want a LostLockError", err)
	}
	if content, _ := readLock(store + LockSuffix); isOwner(content, held.me.Nonce) {
		t.Fatal("the other writer's lock was taken back")
	}
}

// A store where no lock file can be made exclusively is refused, naming
// the filesystem; nothing is written.
func TestNoSafeLockNamesTheFilesystem(t *testing.T) {
	const store = "/sys/kernel/abbench-history.jsonl"
	if _, err := os.Stat("/sys/kernel"); err != nil {
		t.Skip("no sysfs here")
	}
	_, _, err := Append(store, []Entry{runEntry("a", 1)})
	var refused *NoSafeLockError
	if !errors.As(err, &refused) || refused.Filesystem != "sysfs" || !strings.Contains(err.Error(), "no safe lock on this filesystem (sysfs)") {
		t.Fatalf("Append to a store on sysfs: %v, want a NoSafeLockError naming sysfs", err)
	}
}

// A store written between an add's read and its write by a writer without
// the lock (an earlier abbench on another host) loses nothing: the add
// sees its end changed, reads the store again and adds after the other
// writer's line.
func TestStoreChangedBeforeTheWriteIsReadAgain(t *testing.T) {
	store := filepath.Join(t.TempDir(), "h.jsonl")
	if _, _, err := Append(store, []Entry{runEntry("a", 1)}); err != nil {
		t.Fatal(err)
	}
	other := lineOf(t, runEntry("other", 2))
	calls := 0
	was := betweenReadAndWrite
	betweenReadAndWrite = func(path string) {
		if calls++; calls == 1 {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = f.WriteString(other)
			_ = f.Close()
		}
	}
	defer func() { betweenReadAndWrite = was }()
	if n, _, err := Append(store, []Entry{runEntry("b", 3), runEntry("c", 4)}); n != 2 || err != nil {
		t.Fatalf("the add: %d, %v; want 2 added", n, err)
	}
	entries, _, err := Read(store)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	if strings.Join(keys, " ") != "a other b c" {
		t.Fatalf("the store holds %v, want a, the other writer's line, then b and c", keys)
	}
}
