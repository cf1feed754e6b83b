package history

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// LockSuffix names a store's lock file: STORE.lock, beside it.
const LockSuffix = ".lock"

// The lease of a store's lock file: its holder rewrites it every
// renewEvery; another writer breaks it only once it has seen it unchanged
// for lease on its own clock (hosts' clocks need not agree), or at once
// when its holder is a process of this host, and pid namespace, that is
// gone. lockWait bounds the wait for a lock that is held.
var (
	lease      = 30 * time.Second
	renewEvery = 5 * time.Second
	lockWait   = 2 * time.Minute
)

// lockCap bounds what is read of a lock file: an owner record is a few
// hundred bytes.
const lockCap = 4096

// owner is what a lock file holds: who holds it, for a person and for
// the liveness check of a holder on this host, and its lease as the
// holder's clock saw it (for a person: a breaker judges by its own).
type owner struct {
	Nonce   string    `json:"nonce"`
	Host    string    `json:"host"`
	BootID  string    `json:"boot_id,omitempty"`
	PIDNS   string    `json:"pid_ns,omitempty"`
	PID     int       `json:"pid"`
	Start   string    `json:"start,omitempty"` // the process's start (clock ticks since boot): a pid used again is another process
	Renewed int       `json:"renewed"`
	Expires time.Time `json:"expires"`
}

func (o *owner) String() string {
	return fmt.Sprintf("pid %d on %s, lease to %s", o.PID, o.Host, o.Expires.Format(time.RFC3339))
}

// LockBusyError is a store whose lock file another add held, renewing
// it, for as long as an add waits.
type LockBusyError struct {
	Store, Lock, Holder string
}

func (e *LockBusyError) Error() string {
	return fmt.Sprintf("%s: another abbench history add (%s) held %s for %s: it renews its lease while it writes; add again once it ends (a lock whose holder is gone is broken once its lease has passed unrenewed)",
		e.Store, e.Holder, e.Lock, lockWait)
}

// NoSafeLockError is a store on a filesystem where no lock file could be
// made, or where one made exclusively was not this add's when read back
// (a filesystem that does not honour O_EXCL): two adds could not be held
// apart there, so none writes.
type NoSafeLockError struct {
	Store, Lock, Filesystem string
	Err                     error
}

func (e *NoSafeLockError) Error() string {
	return fmt.Sprintf("%s: no safe lock on this filesystem (%s): %v; an add writes only under a lock file made exclusively beside the store: keep the store where this user may create files, on a filesystem that honours O_EXCL (NFSv3 or later, sshfs, a local disk)",
		e.Store, e.Filesystem, e.Err)
}

func (e *NoSafeLockError) Unwrap() error { return e.Err }

// LostLockError is a lock file this add held that is no longer its own
// (another writer broke it as stale: this add was stopped past its
// lease), or whose lease it could not renew (Err): the add writes
// nothing.
type LostLockError struct {
	Store, Lock string
	Err         error
}

func (e *LostLockError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: renewing the lease of this add's lock %s: %v: another writer may break it, so nothing was written; add again once the cause is fixed", e.Store, e.Lock, e.Err)
	}
	return fmt.Sprintf("%s: this add's lock %s was taken by another writer (this add was stopped past its lease of %s): nothing was written; add again", e.Store, e.Lock, lease)
}

func (e *LostLockError) Unwrap() error { return e.Err }

// heldLock is a store's lock file held by this add, renewed in the
// background until released.
type heldLock struct {
	store, path string
	f           *os.File
	mu          sync.Mutex // the file and me, between the renewer and check
	me          owner
	lost        bool  // the lock file is no longer this add's, or
	renewErr    error // its lease could not be renewed
	stop, done  chan struct{}
}

// lockFile takes store's lock file: created exclusively (O_EXCL, which
// holds across hosts on NFS and sshfs, where flock holds per mount),
// holding its owner, renewed until release. A held one is waited for, at
// most lockWait; one left by a writer that is gone is broken (breakStale).
func lockFile(store string) (*heldLock, error) {
	path := store + LockSuffix
	me := newOwner()
	deadline := time.Now().Add(lockWait)
	var seen []byte
	seenSince := time.Now()
	for {
		h, err := create(store, path, me)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return h, err
		}
		content, err := readLock(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // released meanwhile
		} else if err != nil {
			return nil, fmt.Errorf("%s: reading its lock %s: %w", store, path, err)
		}
		if !bytes.Equal(content, seen) {
			seen, seenSince = content, time.Now()
		}
		if stale(content, seenSince) {
			breakStale(path, content, me.Nonce)
			continue
		}
		if time.Now().After(deadline) {
			return nil, &LockBusyError{Store: store, Lock: path, Holder: holder(content)}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// create makes the lock file exclusively and reads it back: what it reads
// must be this add's own record, else the filesystem does not hold two
// creators apart.
func create(store, path string, me owner) (*heldLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, err
	} else if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: its directory: %w", store, err)
	} else if err != nil {
		return nil, &NoSafeLockError{Store: store, Lock: path, Filesystem: filesystemOf(path), Err: err}
	}
	h := &heldLock{store: store, path: path, f: f, me: me, stop: make(chan struct{}), done: make(chan struct{})}
	if err := h.write(); err != nil {
		// A full disk, most likely: the add's own error, in the words
		// of a write of the store that failed, which it would have been.
		h.abandon()
		return nil, fmt.Errorf("appending to %s: writing its lock %s: %w (the store is as it was; add again once the cause is fixed)", store, path, err)
	}
	if content, err := readLock(path); err != nil || !isOwner(content, me.Nonce) {
		_ = f.Close() // not ours to remove
		return nil, &NoSafeLockError{Store: store, Lock: path, Filesystem: filesystemOf(path),
			Err: fmt.Errorf("%s, created exclusively, read back as another writer's (%q, %v)", path, holder(content), err)}
	}
	go h.renew()
	return h, nil
}

// write puts the owner record, its lease from now, in the lock file (h.mu
// held, or not yet shared).
func (h *heldLock) write() error {
	h.me.Expires = time.Now().Add(lease).UTC()
	data, _ := json.Marshal(&h.me)
	data = append(data, '\n')
	if _, err := h.f.WriteAt(data, 0); err != nil {
		return err
	}
	return h.f.Truncate(int64(len(data)))
}

// renew rewrites the record every renewEvery through the descriptor the
// lock was made with, once it has read there that the file is still this
// add's: so a renewal never writes over another writer's lock file, and a
// lock broken meanwhile is known lost.
func (h *heldLock) renew() {
	defer close(h.done)
	t := time.NewTicker(renewEvery)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.mu.Lock()
		if h.lost = h.lost || !h.ownsLocked(); !h.lost {
			h.me.Renewed++
			if err := h.write(); err != nil {
				h.lost, h.renewErr = true, err // a lease not renewed may be broken: write nothing under it
			}
		}
		h.mu.Unlock()
	}
}

// ownsLocked says whether the lock file at its path is still this add's
// (h.mu held): it holds this add's nonce, which no other writer writes
// (a lock moved aside and linked back is the same file). Inode numbers
// are not compared: some FUSE filesystems do not keep them.
func (h *heldLock) ownsLocked() bool {
	content, err := readLock(h.path)
	return err == nil && isOwner(content, h.me.Nonce)
}

// check is nil while the lock is this add's, else a *LostLockError:
// asked right before the store is written.
func (h *heldLock) check() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost = h.lost || !h.ownsLocked(); h.lost {
		return &LostLockError{Store: h.store, Lock: h.path, Err: h.renewErr}
	}
	return nil
}

// release stops the renewal and removes the lock file, when it is still
// this add's: it is moved aside first, and put back should it be another
// writer's by then.
func (h *heldLock) release() {
	close(h.stop)
	<-h.done
	_ = h.f.Close() // the record was written in full at every renewal
	moveAsideUnless(h.path, func(content []byte) bool { return isOwner(content, h.me.Nonce) }, h.me.Nonce)
}

// abandon gives up a lock file this add made but could not write.
func (h *heldLock) abandon() {
	_ = h.f.Close()
	_ = os.Remove(h.path)
}

// breakStale removes a lock file judged stale from content: only when the
// file is still that content (it is moved aside and read there); a lock
// renewed or taken anew meanwhile is put back.
func breakStale(path string, content []byte, nonce string) {
	moveAsideUnless(path, func(now []byte) bool { return bytes.Equal(now, content) }, nonce)
}

// moveAsideUnless renames path aside, removes it there when remove says
// so of what it holds, and otherwise links it back (a lock another writer
// made at the path meanwhile stays: the holder of the one moved finds it
// lost at its next check and writes nothing).
func moveAsideUnless(path string, remove func([]byte) bool, nonce string) {
	aside := path + ".aside-" + nonce
	if os.Rename(path, aside) != nil {
		return // gone already
	}
	if content, err := readLock(aside); err == nil && !remove(content) {
		_ = os.Link(aside, path) // fails when a new lock is there: it stays
	}
	_ = os.Remove(aside)
}

// stale says whether a lock file that has held content since seenSince
// (on this add's clock) may be broken: its lease passed unrenewed, or its
// holder is a process of this host that is gone.
func stale(content []byte, seenSince time.Time) bool {
	if time.Since(seenSince) > lease {
		return true
	}
	var o owner
	if json.Unmarshal(content, &o) != nil || o.BootID == "" || o.PIDNS == "" {
		return false // a record being written, or of another kind of host: its lease decides
	}
	me := newOwner()
	if o.Host != me.Host || o.BootID != me.BootID || o.PIDNS != me.PIDNS {
		return false
	}
	return processStart(o.PID) != o.Start
}

func isOwner(content []byte, nonce string) bool {
	var o owner
	return json.Unmarshal(content, &o) == nil && o.Nonce == nonce
}

// holder is a lock file's owner as a message names it.
func holder(content []byte) string {
	var o owner
	if json.Unmarshal(content, &o) != nil {
		return fmt.Sprintf("a lock file of %d bytes that names no owner", len(content))
	}
	return o.String()
}

// readLock reads a lock file, at most lockCap bytes, never through a link.
func readLock(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	return io.ReadAll(io.LimitReader(f, lockCap))
}

// newOwner is this process's owner record, with a nonce of its own.
func newOwner() owner {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand's Read never fails
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return owner{Nonce: hex.EncodeToString(b[:]), Host: host, BootID: strings.TrimSpace(string(boot)), PIDNS: ns, PID: os.Getpid(), Start: processStart(os.Getpid())}
}

// processStart is field 22 of /proc/PID/stat, the process's start in
// clock ticks since boot, or "" when there is no such process.
func processStart(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command (field 2) is in parentheses and may hold spaces: the
	// fields after it are counted from its closing one.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
