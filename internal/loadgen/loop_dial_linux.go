//go:build linux

package loadgen

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// loopOff sends every phase through the workers (for tests that hold the
// two ways to the same outcomes).
var loopOff = false

// dial starts c's connection to the address it tries, non-blocking: the
// request is written once the socket says it is connected. Addresses are
// tried in turn, as the net package's dialer tries them.
func (l *evloop) dial(ctx context.Context, c *lconn) {
	sa := l.addrs[c.try]
	family := unix.AF_INET
	if _, ok := sa.(*unix.SockaddrInet6); ok {
		family = unix.AF_INET6
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.end(ctx, c, &net.OpError{Op: "dial", Net: "tcp", Addr: l.raddrs[c.try], Err: os.NewSyscallError("socket", err)}, false)
		return
	}
	c.fd, c.state = fd, lconnecting
	// As the net package's dialer sets them (its keep-alive 30 s); a
	// refused option leaves the connection as it is, still a connection.
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 30)
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 30)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.id}
	if err := unix.EpollCtl(l.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.shut(c)
		l.end(ctx, c, &net.OpError{Op: "dial", Net: "tcp", Addr: l.raddrs[c.try], Err: os.NewSyscallError("epoll_ctl", err)}, false)
		return
	}
	switch err := unix.Connect(fd, sa); {
	case err == nil:
		l.connected(ctx, c)
	case errors.Is(err, unix.EINPROGRESS):
	default:
		l.dialFailed(ctx, c, err)
	}
}

// connected takes the end of c's connect: the request written, or the
// next address tried, or the request failed.
func (l *evloop) connected(ctx context.Context, c *lconn) {
	if v, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || v != 0 {
		if err == nil {
			err = syscall.Errno(v)
		}
		l.dialFailed(ctx, c, err)
		return
	}
	l.prefer = c.try
	if sa, err := unix.Getsockname(c.fd); err == nil {
		c.laddr = tcpAddr(sa)
	}
	c.state = lwriting
	l.write(ctx, c)
}

// dialFailed tries the next address, or fails the request when each was.
func (l *evloop) dialFailed(ctx context.Context, c *lconn, err error) {
	l.shut(c)
	c.tries++
	if c.tries < len(l.addrs) {
		c.try = (c.try + 1) % len(l.addrs)
		l.dial(ctx, c)
		return
	}
	l.end(ctx, c, &net.OpError{Op: "dial", Net: "tcp", Addr: l.raddrs[c.try], Err: os.NewSyscallError("connect", err)}, false)
}

func tcpAddr(sa unix.Sockaddr) net.Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]).To16(), Port: a.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: net.IP(a.Addr[:]), Port: a.Port}
	}
	return nil
}

// epollWait waits on the epoll set at most msec milliseconds as a raw
// system call (evloop.wait says why).
func epollWait(ep int, events []unix.EpollEvent, msec int) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}
