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
		n, err := sysWrite(int(fd), r.req[r.written:])
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

// step is the RawConn.Read callback of Read: one read, or, when nothing
// has come yet, a wait for the poller to say something has (or for the
// deadline).
func (r *rawReader) step(fd uintptr) bool {
	for {
		n, err := sysRead(int(fd), r.p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return false
		case err != nil:
			r.err = &net.OpError{Op: "read", Net: "tcp", Source: r.conn.LocalAddr(), Addr: r.conn.RemoteAddr(), Err: os.NewSyscallError("read", err)}
		}
		r.n = n
		return true
	}
}
