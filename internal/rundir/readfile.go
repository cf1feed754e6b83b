package rundir

import (
	"fmt"
	"io/fs"
	"syscall"
)

// readFile is os.ReadFile of a regular file (followed through a link, as
// os.ReadFile follows it), asked of the kernel with the descriptor alone:
// an *os.File offers each file to the poller, which refuses a regular one,
// and sets its flags back, five calls more than the open, stat, read and
// close. Resolving a thousand campaigns reads every run's LATEST this way.
// A file that is not a regular one (a FIFO, a device) is refused: it could
// block or never end.
func readFile(path string) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) {
		return syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }() // only read: a failed close loses nothing
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	// One byte more than the size: a read that returns fewer bytes than
	// asked for once the size is read has met the end, with no last read
	// that returns nothing. One that returns less before (a FUSE or
	// network file system may) is read on, to the size or to a read that
	// returns nothing.
	buf := make([]byte, 0, st.Size+1)
	for {
		want := cap(buf) - len(buf)
		n, err := retryEINTR(func() (int, error) { return sysRead(fd, buf[len(buf):cap(buf)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		if n == 0 || n < want && int64(len(buf)) >= st.Size {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew since it was stated: read on
		}
	}
}

// sysRead is the read system call, which tests replace with one that
// returns less than asked for, as a FUSE or network file system may
// before the end of a file.
var sysRead = syscall.Read

// retryEINTR calls call again while a signal interrupts it.
func retryEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
