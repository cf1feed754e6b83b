package bundle

import (
	"fmt"
	"io"
	"io/fs"
	"syscall"
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
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.ELOOP {
		return regularFile{}, 0, fmt.Errorf("%s is a symbolic link: bundles hold regular files only", path)
	}
	if err != nil {
		return regularFile{}, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := regularFile{fd: fd, path: path}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		f.close()
		return regularFile{}, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		f.close()
		return regularFile{}, 0, fmt.Errorf("%s is not a regular file", path)
	}
	return f, st.Size, nil
}

// Read reads as an *os.File does: io.EOF at the end.
func (f regularFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
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
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.close()
	return readAll(f, size)
}

// readAll reads f, a regular file, to its end into one buffer of about
// size bytes. A read of a regular file that returns fewer bytes than asked
// for has met the end: the buffer's one byte more than size says so
// without a last read returning nothing (a tenth of a bundle's system
// calls). Should a file system ever return less before the end, the bytes
// read are a part of the file, whose digest then fails: never a pass.
func readAll(f regularFile, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	for {
		want := cap(buf) - len(buf)
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF, err == nil && n < want:
			return buf, nil
		case err != nil:
			return nil, err
		}
		buf = append(buf, 0)[:len(buf)] // it grew since: read on
	}
}
