// Package atomicfile writes files so that a reader sees either the old
// content or the whole new content, never a part: the data goes to a
// temporary file in the same directory, is synced, and is renamed into place.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces path with data, synced to disk first.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// Publish atomically replaces path with data without syncing it to disk:
// readers never see a partial file, but a power loss may lose it. It is for
// coordination files, which matter only while their run is alive.
func Publish(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f.nosync = !sync
	return f.Commit()
}

// File is a temporary file that becomes path on Commit.
type File struct {
	*os.File
	path   string
	done   bool
	nosync bool
}

// Create starts writing path; nothing is visible at path until Commit.
// Its errors, and Commit's, name path.
func Create(path string, perm os.FileMode) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	f := &File{File: tmp, path: path}
	if err := tmp.Chmod(perm); err != nil {
		f.Abort()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return f, nil
}

// Commit syncs the data and renames it into place.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("atomicfile: %s already committed or aborted", f.path)
	}
	err := f.commit()
	if err != nil {
		f.discard()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

func (f *File) commit() error {
	if !f.nosync { // see Publish
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.File.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), f.path)
}

// Abort discards the temporary file; path is left as it was. It is safe to
// call after Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() {
	if !f.done {
		f.discard()
	}
}

// discard closes and removes the temporary file. Both are cleanup of a
// file nobody will read: path never named it, so an error here loses
// nothing (at worst a hidden temporary file stays beside path).
func (f *File) discard() {
	f.done = true
	_ = f.File.Close()
	_ = os.Remove(f.Name())
}
