//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package loadgen

import (
	"errors"
	"syscall"
)

// canPeek: this system peeks at a socket without waiting.
const canPeek = true

// peek says, without waiting or taking anything, whether an idle
// connection holds bytes no request asked for (stray) or was closed by
// the server (closed).
func peek(rc syscall.RawConn) (stray, closed bool) {
	var (
		buf [1]byte
		n   int
		err error
	)
	if cerr := rc.Read(func(fd uintptr) bool {
		n, _, err = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // one look, never a wait
	}); cerr != nil {
		return false, true
	}
	switch {
	case err == nil:
		return n > 0, n == 0 // 0 bytes: the server's FIN
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
		return false, false // nothing to read: open and quiet
	}
	return false, true // reset, or broken otherwise
}
