// Package guarded reads files that others may have tampered with: a run
// directory, where every rank of the system under test can write, and the
// per-user directory of live runs. A file is read through an os.Root (no
// path, .. or link leads outside the directory), never through a symbolic
// link (its last component is opened with O_NOFOLLOW, so a link swapped in
// after a check is refused, not followed), and only when it is a regular
// file (a FIFO would block the reader, a device is no record).
package guarded

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/abbench/abbench/internal/readonly"
)

// RefusedError says why a file was not opened: what it is, not whether
// it could be read.
type RefusedError struct {
	Path string // relative to the directory
	Why  string
}

func (e *RefusedError) Error() string { return e.Path + " " + e.Why }

// Open opens name, relative to root, for reading; a *RefusedError says it
// is not a regular file of the directory.
func Open(root *os.Root, name string) (*os.File, error) {
	name = filepath.Clean(name)
	if !filepath.IsLocal(name) {
		return nil, &RefusedError{name, "is outside the directory: only the directory's own files are read"}
	}
	parent, err := root.Open(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	defer readonly.Close(parent)
	raw, err := parent.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var oerr error
	cerr := raw.Control(func(dirfd uintptr) {
		for {
			// golang.org/x/sys/unix: the syscall package has no openat on darwin.
			fd, oerr = unix.Openat(int(dirfd), filepath.Base(name), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if oerr != syscall.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return nil, cerr
	}
	if oerr == syscall.ELOOP {
		return nil, &RefusedError{name, "is a symbolic link: files are read only from the directory itself, never through a link (which may lead outside it)"}
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: oerr}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root.Name(), name))
	fi, err := f.Stat()
	if err != nil {
		readonly.Close(f)
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		readonly.Close(f)
		return nil, &RefusedError{name, fmt.Sprintf("is not a regular file (%s)", fi.Mode().Type())}
	}
	return f, nil
}

// ReadFile reads the whole of name, relative to root, as Open opens it.
func ReadFile(root *os.Root, name string) ([]byte, error) {
	f, err := Open(root, name)
	if err != nil {
		return nil, err
	}
	defer readonly.Close(f)
	return io.ReadAll(f)
}

// Owner is the user id that owns the file fi describes.
func Owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
