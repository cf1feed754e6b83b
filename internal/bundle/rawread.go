package bundle

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// regularFile is a bundle's file opened for reading with its descriptor
// alone. An *os.File costs five system calls more a file (it offers each
// to the poller, which refuses a regular file, and sets its flags back):
// a third of what verifying a bundle of small files asked the kernel.
type regularFile struct {
	fd   int
	path string
}

// openRegular opens the regular file at path, never through a symbolic
// link and never waiting on a FIFO (either swapped in after the listing
// checked the entry is refused), and says its size.
func openRegular(path string) (regularFile, int64, error) {
	f, err := openUnstated(path)
	if err != nil {
		return regularFile{}, 0, err
	}
	size, err := f.stat()
	if err != nil {
		f.close()
		return regularFile{}, 0, err
	}
	return f, size, nil
}

// openUnstated is openRegular without the stat: the first read says
// whether one is needed (readHead).
func openUnstated(path string) (regularFile, error) {
	return openUnstatedAt(fileAt{dir: unix.AT_FDCWD, name: path, path: path})
}

// fileAt is where a bundle's file is opened: name in the open directory
// dir (unix.AT_FDCWD: name is a path), called path in errors.
type fileAt struct {
	dir        int
	name, path string
}

// openUnstatedAt is openUnstated of the file at in.
func openUnstatedAt(in fileAt) (regularFile, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Openat(in.dir, in.name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ELOOP {
		return regularFile{}, fmt.Errorf("%s is a symbolic link: bundles hold regular files only", in.path)
	}
	if err != nil {
		return regularFile{}, &fs.PathError{Op: "open", Path: in.path, Err: err}
	}
	return regularFile{fd: fd, path: in.path}, nil
}

// openDir opens the directory at in to list it and open its files by
// their names: the bundle's own path may lead through a link (root), a
// directory in it never does. An *os.File of its descriptor alone: one
// system call more than os.ReadDir's open, none offering it to the poller.
func openDir(in fileAt, root bool) (*os.File, error) {
	flags := syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_DIRECTORY
	if !root {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = unix.Openat(in.dir, in.name, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: in.path, Err: err}
	}
	return os.NewFile(uintptr(fd), in.path), nil
}

// stat is the size of f, which must be a regular file.
func (f regularFile) stat() (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: f.path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, fmt.Errorf("%s is not a regular file", f.path)
	}
	return st.Size, nil
}

// readHead reads f once into buf. With shortIsEnd, a read that returns
// bytes, but fewer than buf holds, is taken for the end of a regular file
// (a local file system's read returns less only there): head is then the
// whole file and size -1, with no stat (a sixth of the system calls of
// verifying a bundle of small files). A file system that returns less
// before the end (FUSE, a network one) then gives a part of the file,
// whose digest fails: the caller reads it again without shortIsEnd
// before it calls the file changed (dirCheck.files). Otherwise f is
// stated as openRegular states it (refused unless a regular file), and
// size is its size: a read that returned nothing is an empty file or a
// FIFO without a writer (the stat tells them apart), one that filled buf
// a larger file or a device. What else a FIFO swapped in after the
// listing could give is bytes that are then hashed: the digest holds them
// to the manifest's, and what is parsed is what was hashed.
func (f regularFile) readHead(buf []byte, shortIsEnd bool) (head []byte, size int64, err error) {
	n, err := f.Read(buf)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	if shortIsEnd && n > 0 && n < len(buf) {
		return buf[:n], -1, nil
	}
	size, err = f.stat()
	return buf[:n], size, err
}

// sysRead is the read system call, which tests replace with one that
// returns less than asked for, as a FUSE or network file system may
// before the end of a file.
var sysRead = syscall.Read

// Read reads as an *os.File does: io.EOF at the end.
func (f regularFile) Read(p []byte) (int, error) {
	for {
		n, err := sysRead(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: f.path, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// close closes the descriptor of a file only read: nothing a failed
// close could lose.
func (f regularFile) close() { _ = syscall.Close(f.fd) }

// readRegular is the whole of the regular file at path, read to its end
// whatever its size said, as openRegular opens it.
func readRegular(path string) ([]byte, error) {
	f, err := openUnstated(path)
	if err != nil {
		return nil, err
	}
	defer f.close()
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	head, size, err := f.readHead(*buf, false)
	if err != nil {
		return nil, err
	}
	return readAll(f, head, size)
}

// readAll reads f, a regular file whose first bytes head are read, to its
// end into one buffer of about size bytes, its size when stated. A read
// that returns fewer bytes than asked for once size bytes are read has
// met the end: the buffer's one byte more than size says so without a
// last read returning nothing (a tenth of a bundle's system calls). One
// that returns less before (a FUSE or network file system may) is read
// on, to size or to a read that returns nothing.
func readAll(f regularFile, head []byte, size int64) ([]byte, error) {
	buf := append(make([]byte, 0, max(size, int64(len(head)))+1), head...)
	for {
		want := cap(buf) - len(buf)
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF, err == nil && n < want && int64(len(buf)) >= size:
			return buf, nil
		case err != nil:
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew since: read on
		}
	}
}
