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
// unfinished last line. It is all or nothing: writers are serialised by an
// exclusive lock on the store; the new lines replace the unfinished line
// (the bytes after the last newline, which a writer that died left) in one
// write and are synced before the lock is released. When the write or the
// sync fails (a full disk), the store is put back byte for byte as it was
// found, so a failed add leaves nothing a retry would have to skip or
// mend.
func Append(path string, entries []Entry) (added int, removed string, err error) {
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
	defer func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }()
	data, release, err := mapStore(f)
	if err != nil {
		return 0, "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer release()
	var have map[string]bool
	var complete int
	var oldTail []byte // the mapping shows the bytes written over it
	err = readMapped(path, func() (err error) {
		if have, complete, err = storedKeys(path, data, entries); err == nil {
			removed, oldTail = tornNote(path, data, complete), slices.Clone(data[complete:])
		}
		return err
	})
	if err != nil {
		return 0, "", err
	}
	var lines []byte
	for _, e := range entries {
		if have[e.Kind+" "+e.Key] {
			continue
		}
		have[e.Kind+" "+e.Key] = true
		e.Schema = Schema
		line, err := json.Marshal(e)
		if err != nil {
			return 0, "", err
		}
		lines = append(append(lines, line...), '\n')
		added++
	}
	if added == 0 && removed == "" {
		return 0, "", nil
	}
	if err := replaceTail(f, path, int64(complete), oldTail, lines); err != nil {
		return 0, "", fmt.Errorf("appending to %s: %w", path, err)
	}
	if removed != "" {
		removed += ": removed"
	}
	return added, removed, nil
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

// lock takes the store's exclusive lock, waiting at most a minute (another
// add holds it only while it writes).
func lock(f *os.File) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("another abbench history add held it for a minute")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
