package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"
)

// Append adds the entries whose keys the store's complete lines do not
// hold yet and returns how many it added, and a note when it removed an
// unfinished last line. It is all or nothing, and never writes over
// another add: writers are held apart by the store's lock file (lockFile:
// made exclusively, which holds across the hosts and mounts of a shared
// filesystem, where flock holds per mount) and, for a writer of this host
// that only flocks (an earlier abbench), by an exclusive flock of the
// store; the store is opened only once the lock is held, so a filesystem
// that shows another host's writes at open (NFS) shows them all. The new
// lines replace the unfinished line (the bytes after the last newline,
// which a writer that died left) in one write, synced before the lock is
// released. The store's end is checked right before the write and read
// back after it: a store that changed meanwhile (a writer that held no
// lock) is read again and the add made again, which skips what is
// stored, at most three times, then refused (*ChangedError). When the
// write or the sync fails (a full disk), the store is put back byte for
// byte as it was found, so a failed add leaves nothing a retry would have
// to skip or mend. An entry of a planned run whose place in its plan the
// store holds under another token refuses the add (*DuplicateRunError).
func Append(path string, entries []Entry) (added int, removed string, err error) {
	held, err := lockFile(path)
	if err != nil {
		return 0, "", err
	}
	defer held.release()
	for try := 1; ; try++ {
		added, removed, err = appendLocked(path, entries, held)
		var changed *ChangedError
		if !errors.As(err, &changed) || try == appendTries {
			return added, removed, err
		}
	}
}

// betweenReadAndWrite is called between an add's read of the store and
// its write; a test writes the store there as a writer without the lock.
var betweenReadAndWrite = func(string) {}

// appendTries bounds how often an add whose store changed under it is
// made again.
const appendTries = 3

// appendLocked is one add under the store's lock file.
func appendLocked(path string, entries []Entry, held *heldLock) (added int, removed string, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, "", err
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			added, removed, err = 0, "", fmt.Errorf("closing %s: %w", path, cerr)
		}
	}()
	if err := lock(f); err != nil {
		return 0, "", fmt.Errorf("locking %s: %w", path, err)
	}
	// Closing the file releases the lock too; unlocking first says so.
	defer func() { _ = flock(int(f.Fd()), syscall.LOCK_UN) }()
	data, release, err := mapStore(f)
	if err != nil {
		return 0, "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer release()
	var have map[string]bool
	var complete int
	var oldTail []byte // the mapping shows the bytes written over it
	var before end
	err = readMapped(path, func() (err error) {
		if have, complete, err = storedKeys(path, data, entries); err != nil {
			return err
		}
		// Under the lock, so no add between this check and the write
		// stores the same planned run.
		if err = plannedOnce(path, data[:complete], entries); err != nil {
			return err
		}
		removed, oldTail, before = tornNote(path, data, complete), slices.Clone(data[complete:]), endOf(data)
		return nil
	})
	if err != nil {
		return 0, "", err
	}
	lines, added, err := newLines(entries, have)
	if err != nil || (added == 0 && removed == "") {
		return 0, "", err
	}
	betweenReadAndWrite(path)
	if err := held.check(); err != nil {
		return 0, "", err
	}
	if now, err := fileEnd(f); err != nil {
		return 0, "", fmt.Errorf("reading %s again before the write: %w", path, err)
	} else if now != before {
		return 0, "", &ChangedError{Store: path, Size: before.size, Now: now.size}
	}
	if err := replaceTail(f, path, int64(complete), oldTail, lines); err != nil {
		return 0, "", fmt.Errorf("appending to %s: %w", path, err)
	}
	if err := wroteWhole(f, path, int64(complete), lines); err != nil {
		return 0, "", err
	}
	if removed != "" {
		removed += ": removed"
	}
	return added, removed, nil
}

// newLines are the store's lines of the entries whose keys have does not
// hold (each key once), and how many.
func newLines(entries []Entry, have map[string]bool) (lines []byte, added int, err error) {
	for _, e := range entries {
		if have[e.Kind+" "+e.Key] {
			continue
		}
		have[e.Kind+" "+e.Key] = true
		e.Schema = Schema
		line, err := json.Marshal(e)
		if err != nil {
			return nil, 0, err
		}
		lines = append(append(lines, line...), '\n')
		added++
	}
	return lines, added, nil
}

// tailFile is what replaceTail needs of the store (an *os.File; a test
// makes its writes fail).
type tailFile interface {
	WriteAt(b []byte, off int64) (int, error)
	Truncate(size int64) error
	Sync() error
}

// replaceTail makes the store's content its first at bytes followed by
// lines, synced (oldTail: the bytes it held after at).
// When that fails it writes back what it overwrote, truncates the store to
// its old size and syncs it, so the store is old again; the error says
// whether that worked and, if not, how to mend the store by hand.
func replaceTail(f tailFile, path string, at int64, oldTail, lines []byte) error {
	_, err := f.WriteAt(lines, at)
	if err == nil {
		err = f.Truncate(at + int64(len(lines))) // the old tail may be longer
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		return nil
	}
	_, rerr := f.WriteAt(oldTail, at)
	if terr := f.Truncate(at + int64(len(oldTail))); rerr == nil {
		rerr = terr
	}
	if serr := f.Sync(); rerr == nil {
		rerr = serr
	}
	if rerr != nil {
		return fmt.Errorf("%w; putting the store back failed too (%v): its first %d bytes are the lines it held; cut it to them (truncate -s %d %s) and add again", err, rerr, at, at, path)
	}
	return fmt.Errorf("%w (the store is as it was; add again once the cause is fixed)", err)
}

// flock is flock(2); a test makes it lock nothing, as each mount of a
// store on sshfs locks only for itself.
var flock = syscall.Flock

// lock takes the store's exclusive lock, waiting at most a minute (another
// add holds it only while it writes).
func lock(f *os.File) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("another abbench history add held it for a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
