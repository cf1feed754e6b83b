//go:build linux

// Command epollfloor is the floor under a Go load client's CPU per
// request in bench/load-client.sh: the least a Go program does for the
// same requests, with none of a client's work. It keeps -c connections
// to the endpoint, writes the request on each, and on each readable one
// reads once and, when a whole response is in (by its Content-Length,
// which bench/replyserver always sends), writes the next: no parsing
// beyond that, no timing, no record. -raw waits in epoll_wait as a raw
// system call on a locked thread (the runtime not told: no thread handed
// over while it waits), as abbench load's own loop waits (the runtime's
// preemption signal ends such a wait, so the collector can still stop
// it); without it the wait is the runtime's ordinary system call. Not
// part of abbench: a measuring stick.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

type conn struct {
	fd  int
	buf []byte
}

type floor struct {
	ep          int
	req         []byte
	conns       map[int32]*conn
	raw         bool
	sent, total int
	done        int
}

func main() {
	addr := flag.String("addr", "", "the endpoint, IPv4 HOST:PORT")
	n := flag.Int("c", 256, "connections")
	total := flag.Int("n", 100000, "requests")
	body := flag.String("body", "", "the request body (JSON)")
	raw := flag.Bool("raw", false, "wait in epoll_wait as a raw system call on a locked thread")
	flag.Parse()
	if err := run(*addr, *n, *total, *body, *raw); err != nil {
		fmt.Fprintln(os.Stderr, "epollfloor:", err)
		os.Exit(1)
	}
}

func run(addr string, n, total int, body string, raw bool) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().Is4() {
		return fmt.Errorf("-addr %q: want an IPv4 HOST:PORT", addr)
	}
	if raw {
		runtime.LockOSThread()
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	f := &floor{ep: ep, conns: map[int32]*conn{}, raw: raw, total: total,
		req: []byte("POST /v1/completions HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: epollfloor\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)}
	for range n {
		if err := f.dial(ap); err != nil {
			return err
		}
	}
	start := time.Now()
	events := make([]syscall.EpollEvent, 256)
	for f.done < total {
		k, err := f.wait(events)
		if err != nil {
			return err
		}
		for _, ev := range events[:k] {
			if err := f.ready(ev); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%d requests in %.3fs\n", f.done, time.Since(start).Seconds())
	return nil
}

// dial starts a non-blocking connection, watched for writable: connected.
func (f *floor) dial(ap netip.AddrPort) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
		return err
	}
	err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	if err != nil && !errors.Is(err, syscall.EINPROGRESS) {
		return err
	}
	f.conns[int32(fd)] = &conn{fd: fd, buf: make([]byte, 0, 64<<10)}
	return syscall.EpollCtl(f.ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLOUT, Fd: int32(fd)})
}

// wait waits for ready connections, as -raw says.
func (f *floor) wait(events []syscall.EpollEvent) (int, error) {
	for {
		var n int
		var err error
		if f.raw {
			// 10 ms at most: the process is not stopped for longer.
			r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(f.ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 10, 0, 0)
			n, err = int(r), nil
			if e != 0 {
				err = e
			}
		} else {
			n, err = syscall.EpollWait(f.ep, events, 10)
		}
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

// ready takes one event: a connection connected (the first request
// written, then watched for readable) or readable.
func (f *floor) ready(ev syscall.EpollEvent) error {
	c := f.conns[ev.Fd]
	if ev.Events&(syscall.EPOLLERR|syscall.EPOLLHUP) != 0 {
		return fmt.Errorf("connection %d: the endpoint closed it or refused it", c.fd)
	}
	if ev.Events&syscall.EPOLLOUT != 0 {
		if err := syscall.EpollCtl(f.ep, syscall.EPOLL_CTL_MOD, c.fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: ev.Fd}); err != nil {
			return err
		}
		return f.send(c)
	}
	m, err := syscall.Read(c.fd, c.buf[len(c.buf):cap(c.buf)])
	switch {
	case errors.Is(err, syscall.EAGAIN):
		return nil
	case err != nil:
		return err
	case m == 0:
		return fmt.Errorf("connection %d: the endpoint closed it", c.fd)
	}
	c.buf = c.buf[:len(c.buf)+m]
	whole, err := complete(c.buf)
	if err != nil || !whole {
		return err
	}
	c.buf = c.buf[:0]
	f.done++
	return f.send(c)
}

// send writes the next request on c, while any is left.
func (f *floor) send(c *conn) error {
	if f.sent == f.total {
		return nil
	}
	f.sent++
	m, err := syscall.Write(c.fd, f.req)
	if err == nil && m < len(f.req) {
		err = fmt.Errorf("connection %d: a request written in part (%d of %d bytes)", c.fd, m, len(f.req))
	}
	return err
}

var (
	headEnd       = []byte("\r\n\r\n")
	contentLength = []byte("\r\nContent-Length: ")
)

// complete says whether buf holds a whole response of a Content-Length.
func complete(buf []byte) (bool, error) {
	h := bytes.Index(buf, headEnd)
	if h < 0 {
		return false, nil
	}
	i := bytes.Index(buf[:h+2], contentLength)
	if i < 0 {
		return false, errors.New("a response without Content-Length")
	}
	i += len(contentLength)
	j := bytes.IndexByte(buf[i:h+2], '\r')
	n, err := strconv.Atoi(string(buf[i : i+j]))
	if err != nil {
		return false, fmt.Errorf("Content-Length %q", buf[i:i+j])
	}
	return len(buf) >= h+len(headEnd)+n, nil
}
