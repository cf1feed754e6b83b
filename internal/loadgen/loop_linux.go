//go:build linux

package loadgen

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/abbench/abbench/internal/digest"
)

// evloop sends a closed-loop phase over plain HTTP/1.1 the way wrk does:
// one goroutine, Concurrency non-blocking sockets in an edge-triggered
// epoll set of its own, each connection a small state machine (connect,
// write the request, read its answer, take it whole), no goroutine or
// allocation a request. A worker a connection instead parks a goroutine
// a request in the runtime's poller and is handed each request over a
// channel: the runtime's scheduler, its poller and that hand-over were
// most of what the client spent beyond wrk's CPU a request.
//
// It keeps every guarantee of the workers: a response is taken whole by
// the same strict reader (loop_parse.go), a request written is never
// written again, bytes after a whole response fail it (stray-bytes), the
// request's deadline and the connect deadline hold, the run's end cuts
// every request at once (an eventfd the run's context writes wakes the
// wait), and the order of sending is the dispatcher's: this goroutine
// is the dispatcher.
type evloop struct {
	p      *phase
	ep     int
	wake   int // the eventfd the run's end writes
	addrs  []unix.Sockaddr
	raddrs []net.Addr
	prefer int // the address the last connection was made to
	conns  []lconn
	free   []int32 // connections with no request, the last freed first
	events []unix.EpollEvent
	rbuf   []byte
	t      *taker
	// inflight counts the requests on their way; k is the next request's
	// index; stopped says no more are sent.
	inflight, k int
	stopped     bool
	// told holds the requests started, ended and failed since progress
	// was last told: it is told every loopScan and at the end, not with
	// a locked add of each request's (a full barrier a request, which
	// waits for every store before it).
	told struct{ started, finished, failed int64 }
	// nextScan is when the loop next looks at the deadlines, nextDue
	// the earliest any request in flight can have passed.
	nextScan, nextDue time.Time
}

// The states of a connection.
const (
	lnone       = iota // no socket
	lidle              // connected, no request on it
	lconnecting        // the connect on its way, a request waiting
	lwriting           // the request being written
	lreading           // written, its answer coming
)

// lconn is one connection and the request on it.
type lconn struct {
	id        int32 // its place in the loop's conns, and in its epoll events
	fd, state int
	try       int // the address being tried, tries how many were
	tries     int
	laddr     net.Addr
	req       []byte
	written   int
	out       *Outcome
	done      *atomic.Bool
	prompt    digest.Prompt
	sent      time.Time
	deadline  time.Time // the request's
	connectBy time.Time
	pd        pending
}

// loopScan is how often the loop looks for requests past their deadline:
// a deadline is met within it.
const loopScan = 5 * time.Millisecond

// newLoop is the loop for a phase, or nil when the phase is not one it
// sends (TLS, a stream, an arrival schedule or ramp) or the target's
// addresses are not known: then the workers send it.
func newLoop(p *phase) *evloop {
	c, o := p.c, p.c.o
	if c.target.tls || o.Stream || p.spec.sched.rate > 0 || p.spec.gated || loopOff {
		return nil
	}
	addrs, raddrs := resolve(c.target.addr, o.ConnectTimeout)
	if len(addrs) == 0 {
		return nil
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err == nil {
		err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1})
	}
	if err != nil {
		_ = unix.Close(ep)
		if wake >= 0 {
			_ = unix.Close(wake)
		}
		return nil
	}
	l := &evloop{p: p, ep: ep, wake: wake, addrs: addrs, raddrs: raddrs, conns: make([]lconn, o.Concurrency),
		events: make([]unix.EpollEvent, min(o.Concurrency+1, 1024)), rbuf: make([]byte, 64<<10), t: newTaker(c)}
	for i := range l.conns {
		l.conns[i].fd, l.conns[i].id = -1, int32(i)
		l.free = append(l.free, int32(len(l.conns)-1-i))
	}
	return l
}

// resolve is the target's addresses, in the order the resolver gives.
func resolve(addr string, timeout time.Duration) ([]unix.Sockaddr, []net.Addr) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, nil
	}
	var sas []unix.Sockaddr
	var ras []net.Addr
	for _, ip := range ips {
		ip = ip.Unmap()
		ap := netip.AddrPortFrom(ip, uint16(pn))
		if ip.Is4() {
			sas = append(sas, &unix.SockaddrInet4{Port: pn, Addr: ip.As4()})
		} else {
			if ip.Zone() != "" {
				continue // a zoned address: the workers' dialer knows its interface
			}
			sas = append(sas, &unix.SockaddrInet6{Port: pn, Addr: ip.As16()})
		}
		ras = append(ras, net.TCPAddrFromAddrPort(ap))
	}
	return sas, ras
}

// run sends the phase's requests and waits for them all; it returns the
// index of the request whose turn it was when sending stopped, as the
// dispatcher's loop does, and leaves p.ended set when the run ended.
func (l *evloop) run(ctx context.Context) int {
	defer l.close()
	defer l.tell()
	stopWake := context.AfterFunc(ctx, func() {
		var one = [8]byte{1}
		_, _ = unix.Write(l.wake, one[:]) // a full counter still wakes the wait
	})
	defer stopWake()
	for {
		if !l.stopped {
			l.dispatch(ctx)
		}
		if l.stopped && l.inflight == 0 {
			return l.k
		}
		n := l.wait()
		for _, ev := range l.events[:n] {
			if ev.Fd >= 0 {
				l.ready(ctx, &l.conns[ev.Fd], ev.Events)
			}
		}
		if ctx.Err() != nil {
			l.cancelAll(ctx)
		}
		l.scan(ctx)
		l.p.count()
	}
}

// dispatch sends the next requests, in order, on the free connections.
func (l *evloop) dispatch(ctx context.Context) {
	p := l.p
	for len(l.free) > 0 {
		switch {
		case ctx.Err() != nil:
			p.ended, l.stopped = endCause(ctx), true
			return
		case p.spec.total >= 0 && l.k >= p.spec.total:
			l.stopped = true
			return
		case p.spec.until > 0 && time.Since(p.c.start) >= p.spec.until:
			l.stopped = true
			return
		}
		i := l.free[len(l.free)-1]
		l.free = l.free[:len(l.free)-1]
		l.start(ctx, &l.conns[i])
	}
}

// start sends request l.k on c: on its socket, or on a new one.
func (l *evloop) start(ctx context.Context, c *lconn) {
	p := l.p
	i := l.k % len(p.c.prompts)
	out, done := p.next()
	*out = Outcome{Index: l.k, Prompt: i, Line: p.c.prompts[i].Line, Sent: true}
	l.k++
	p.sentUpTo++
	l.told.started++
	l.inflight++
	c.out, c.done, c.prompt, c.req, c.written = out, done, p.c.prompts[i], p.c.requests[i], 0
	c.pd.reset()
	c.sent = l.now()
	out.Send = c.sent.Sub(p.c.start)
	c.deadline = c.sent.Add(p.c.o.RequestTimeout)
	if c.fd < 0 {
		c.connectBy = c.sent.Add(p.c.o.ConnectTimeout)
		c.try, c.tries = l.prefer, 0
		l.dial(ctx, c)
		return
	}
	c.state = lwriting
	l.write(ctx, c)
}

// wait is the epoll set's ready connections, waiting at most until the
// next deadline scan, as a raw system call: the runtime is not told, so
// it neither hands the processor to another thread while the loop waits
// (the monitor taking it back after 20 us, a thread started for it, and
// both woken again when the wait ends: most of what a Go program spends
// beyond wrk's CPU a request, bench/epollfloor) nor has to take it back
// after. The runtime is not stopped by it: its preemption signal (the
// collector's stop, the monitor's after 10 ms) ends the wait (EINTR), and
// the loop's next call yields; a wait is at most loopScan besides.
func (l *evloop) wait() int {
	n, err := epollWait(l.ep, l.events, int(loopScan/time.Millisecond))
	if err != nil {
		return 0 // EINTR: looked at again by the caller
	}
	return n
}

// ready takes a connection's events.
func (l *evloop) ready(ctx context.Context, c *lconn, ev uint32) {
	switch c.state {
	case lconnecting:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.connected(ctx, c)
		}
	case lwriting:
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.write(ctx, c)
		}
	case lreading:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.read(ctx, c, ev&(unix.EPOLLRDHUP|unix.EPOLLHUP) != 0)
		}
	case lidle:
		if ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			// Closed by the server, or bytes no request asked for, on a
			// connection no request is on (the phase's last are sent):
			// it carries nothing more.
			l.shut(c)
		}
	}
}

// write writes what is left of c's request; when all is written, its
// answer is waited for.
func (l *evloop) write(ctx context.Context, c *lconn) {
	for c.written < len(c.req) {
		n, err := sysWrite(c.fd, c.req[c.written:])
		switch {
		case err == nil: // the common case, before errors.Is looks at the others
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return // the rest when the socket is writable again
		case err != nil:
			l.end(ctx, c, l.opError(c, "write", err), false)
			return
		}
		c.written += n
	}
	c.state = lreading
	if c.written > len(c.req)/2 && len(c.req) > 64<<10 {
		l.read(ctx, c, false) // a long write: the answer's edge may have passed meanwhile
	}
}

// read reads what has come on c and takes the response once it is
// whole. A short read took all there was: what comes after makes a new
// edge. After the server's FIN no edge is to come: it reads on to the
// end. A full read may leave more: what has come is looked at (the
// answer may be whole, or past a cap), and the loop reads on while the
// answer waits for more.
func (l *evloop) read(ctx context.Context, c *lconn, hup bool) {
	for {
		n, err := sysRead(c.fd, l.rbuf)
		switch {
		case err == nil && n > 0: // the common case, before errors.Is looks at the others
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return // what came is taken or kept: the next edge says when more has
		case err != nil:
			err = l.opError(c, "read", err)
			if len(c.pd.buf) == 0 && closedConn(err) {
				err = errConnectionClosed // as readHead names it: no byte of an answer came
			}
			l.end(ctx, c, err, false)
			return
		case n == 0:
			l.take(ctx, c, c.pd.buf, true, hup)
			return
		}
		short := n < len(l.rbuf) && !hup
		if short && len(c.pd.buf) == 0 {
			l.take(ctx, c, l.rbuf[:n], false, hup) // the common case: the answer whole in one read, taken in place
			return
		}
		c.pd.buf = append(c.pd.buf, l.rbuf[:n]...)
		if !l.take(ctx, c, c.pd.buf, false, hup) || short {
			return
		}
	}
}

// take takes the response from data, or keeps data for more to come:
// true while it waits for more.
func (l *evloop) take(ctx context.Context, c *lconn, data []byte, eof, hup bool) bool {
	r := l.t.take(&c.pd, data, eof, c.prompt, c.sent, c.out)
	if r.need {
		switch {
		case len(data) > maxResponse:
			l.end(ctx, c, errResponseTooLarge, false)
			return false
		case eof: // the reader said EOF is no end here: cannot be
			l.end(ctx, c, errConnectionClosed, false)
			return false
		}
		if len(c.pd.buf) == 0 {
			c.pd.buf = append(c.pd.buf, data...)
		}
		return true
	}
	l.end(ctx, c, r.err, r.keep && !eof && !hup)
	return false
}

// end ends c's request: its outcome filled and handed to the dispatcher's
// count, the connection kept for the next request or closed.
func (l *evloop) end(ctx context.Context, c *lconn, err error, keep bool) {
	out := c.out
	if err != nil {
		kind, msg := classify(err, c.deadline, ctx, time.Since(c.sent), l.p.c.o.RequestTimeout)
		out.Kind, out.Error = kind, truncate(l.p.c.secrets.In(msg))
	}
	c.done.Store(true)
	c.out, c.done, c.req = nil, nil, nil
	if len(c.pd.buf) > readBuffer {
		c.pd.buf = nil // a large answer's room is not held by an idle connection
	}
	c.pd.reset()
	l.inflight--
	l.told.finished++
	if out.Kind != "" {
		l.told.failed++
	}
	if keep && ctx.Err() == nil {
		c.state = lidle
	} else {
		l.shut(c)
	}
	l.free = append(l.free, c.id)
}

// shut closes c's socket (and so takes it out of the epoll set).
func (l *evloop) shut(c *lconn) {
	if c.fd >= 0 {
		_ = unix.Close(c.fd) // given up: nothing of it is wanted
	}
	c.fd, c.state, c.laddr = -1, lnone, nil
}

// cancelAll ends every request in flight: the run ended.
func (l *evloop) cancelAll(ctx context.Context) {
	for i := range l.conns {
		if c := &l.conns[i]; c.out != nil {
			l.end(ctx, c, ctx.Err(), false)
		}
	}
}

// scan ends the requests past their deadline, and connects past theirs,
// every loopScan.
func (l *evloop) scan(ctx context.Context) {
	now := l.now()
	if now.Before(l.nextScan) {
		return
	}
	l.nextScan = now.Add(loopScan)
	l.tell()
	if now.Before(l.nextDue) {
		return
	}
	// Requests sent later have later deadlines (the same timeouts from a
	// later send): the earliest of those in flight now bounds them all.
	l.nextDue = now.Add(min(l.p.c.o.RequestTimeout, l.p.c.o.ConnectTimeout))
	for i := range l.conns {
		c := &l.conns[i]
		switch {
		case c.out == nil:
		case !now.Before(c.deadline):
			l.end(ctx, c, os.ErrDeadlineExceeded, false)
		case c.state == lconnecting && !now.Before(c.connectBy):
			l.end(ctx, c, &net.OpError{Op: "dial", Net: "tcp", Addr: l.raddrs[c.try], Err: os.ErrDeadlineExceeded}, false)
		default:
			l.nextDue = earliest(l.nextDue, c.deadline)
			if c.state == lconnecting {
				l.nextDue = earliest(l.nextDue, c.connectBy)
			}
		}
	}
}

// now is the time, read from the monotonic clock alone (a time of the
// phase's clock, as the deadlines and send times are): time.Now reads
// the wall clock too, and the clock's readings were about a twentieth
// of the loop's own CPU a request.
func (l *evloop) now() time.Time {
	return l.p.c.start.Add(time.Since(l.p.c.start))
}

// tell tells progress the requests started and ended since it was last
// told.
func (l *evloop) tell() {
	l.p.prog.add(l.told.started, l.told.finished, l.told.failed)
	l.told.started, l.told.finished, l.told.failed = 0, 0, 0
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// opError is a failed read or write of c, as the net package names it.
func (l *evloop) opError(c *lconn, op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.laddr, Addr: l.raddrs[c.try], Err: os.NewSyscallError(op, err)}
}

func (l *evloop) close() {
	for i := range l.conns {
		l.shut(&l.conns[i])
	}
	_ = unix.Close(l.wake)
	_ = unix.Close(l.ep)
}
