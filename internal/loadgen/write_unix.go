//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package loadgen

import (
	"errors"
	"net"
	"os"
	"syscall"
)

// step is the RawConn.Read callback of writeThenWait: first the write of
// what is left of req, then, once the poller says the socket is readable
// (or its deadline passed), done.
func (r *rawWriter) step(fd uintptr) bool {
	if r.waited {
		return true // readable, or the deadline: the read says which
	}
	for r.written < len(r.req) {
		n, err := syscall.Write(int(fd), r.req[r.written:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			if !errors.Is(err, syscall.EAGAIN) {
				r.err = &net.OpError{Op: "write", Net: "tcp", Source: r.conn.LocalAddr(), Addr: r.conn.RemoteAddr(), Err: os.NewSyscallError("write", err)}
			}
			return true
		}
		r.written += n
	}
	r.waited = true
	return false
}
