package loadgen

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// target is where requests go: the address to dial, the Host header (and
// TLS server name), the path, and whether TLS wraps the connection.
type target struct {
	addr, host, path string
	tls              bool
}

func parseTarget(full string) (target, error) {
	u, err := url.Parse(full)
	if err != nil {
		return target{}, err
	}
	t := target{addr: u.Host, host: u.Host, path: u.EscapedPath(), tls: u.Scheme == "https"}
	if u.Port() == "" {
		port := "80"
		if t.tls {
			port = "443"
		}
		t.addr = net.JoinHostPort(u.Hostname(), port)
	}
	return t, nil
}

// request is the whole HTTP/1.1 request that sends body: made once per
// prompt, written as it is.
func (o Options) request(t target, body []byte) []byte {
	var b strings.Builder
	b.WriteString("POST " + t.path + " HTTP/1.1\r\nHost: " + t.host + "\r\nUser-Agent: abbench-load\r\nContent-Type: application/json\r\n")
	if o.Stream {
		b.WriteString("Accept: text/event-stream\r\n")
	}
	if o.APIKey != "" {
		b.WriteString("Authorization: Bearer " + o.APIKey + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	return append([]byte(b.String()), body...)
}

// Caps on what a server can make a worker hold or do.
const (
	// maxHead bounds a response's status line and headers together;
	// readBuffer, the connection's read buffer, each line of them.
	maxHead    = 1 << 20
	readBuffer = 64 << 10
	// idleReuse is how long a TLS connection may sit idle and still be
	// reused: under TLS no peek tells whether the server closed it while
	// idle, and a request written on a closed one would be lost (never
	// sent again), so an older one is closed first. Servers close idle
	// connections after 5 s (uvicorn, so vLLM and SGLang) or more.
	idleReuse = time.Second
	// peekAfter is how long a plain connection must have been idle to be
	// peeked at before it is written on again. A peek is one look at one
	// moment: a FIN or stray bytes that come after it and before the
	// write are missed whenever the look is taken. A connection answered
	// less than this ago is written on at once, which saves a system call
	// a request in a closed loop, and widens
	// that moment to at most peekAfter. Bytes in the read buffer are
	// still seen at the response's end (stray-bytes), and a server closes
	// an idle connection after seconds, not within a millisecond.
	peekAfter = time.Millisecond
)

// worker sends one request at a time over a connection of its own, kept
// alive between requests: reading and writing it itself, with none of
// the hand-offs between goroutines by which net/http's client spends
// several times what wrk spends on a request, and none of its retries: a
// request written is never written again.
type worker struct {
	c    *client
	conn net.Conn
	// raw is the connection's socket when it is plain TCP (nil under TLS),
	// peeked before a request is written on it again.
	raw  syscall.RawConn
	rw   *rawWriter // raw's writer, when raw is kept
	br   *bufio.Reader
	body bodyReader
	sse  *bufio.Reader // the lines of a streamed body, reused
	buf  []byte        // a whole body, reused
	// chunk is a whole body decoded, its choices' room reused.
	chunk chunk
	// stopRun stops the run's end from cutting conn, once it is closed.
	stopRun func() bool
	// idleSince is when conn's last response ended.
	idleSince time.Time
	// prev is the request conn last answered: bytes after its response
	// fail it (stray-bytes), they are no later request's answer.
	prev *Outcome
}

// roundTrip writes req and reads the response's head, framing its body
// in w.body, all by deadline; the run's end (runCtx) cuts the connection
// at once. The caller reads the body and calls done (no closure made a
// request). Deadlines are the connection's own, set once a request: no
// context, timer or goroutine of its own per request.
func (w *worker) roundTrip(runCtx context.Context, deadline time.Time, req []byte) (head, error) {
	if w.conn != nil {
		// Set first: a peek on a connection past an old deadline would
		// take it for a broken one.
		_ = w.conn.SetDeadline(deadline) // a closed connection fails the write, named there
		w.checkIdle()
	}
	if w.conn == nil {
		if err := w.dial(runCtx, deadline); err != nil {
			return head{}, err
		}
		_ = w.conn.SetDeadline(deadline)
	}
	// After the deadline is set: a run that ended before it is seen here,
	// one that ends after it sets the connection's deadline past (the
	// AfterFunc of dial) after this one.
	if err := runCtx.Err(); err != nil {
		return head{}, err
	}
	h, err := w.exchange(req)
	if err != nil {
		w.done(runCtx, false)
	}
	return h, err
}

// done ends a request on the connection: kept for the next when ok (the
// body read to its end, no close asked for), closed when cut by the run's
// end or in an unknown state.
func (w *worker) done(runCtx context.Context, ok bool) {
	if !ok || runCtx.Err() != nil {
		w.close()
		return
	}
	w.idleSince = time.Now()
}

// checkIdle closes a kept-alive connection that must not carry the next
// request: one with bytes no request asked for (which fail the request
// they follow), one the server closed while it was idle, and a TLS one
// idle for longer than idleReuse. Nothing has been written yet, so the
// next request goes on a new connection, once.
func (w *worker) checkIdle() {
	stray, closed := w.br.Buffered() > 0, false
	switch {
	case stray:
	case w.raw != nil:
		if time.Since(w.idleSince) >= peekAfter {
			stray, closed = peek(w.raw)
		}
	default:
		closed = time.Since(w.idleSince) > idleReuse
	}
	if stray && w.prev != nil {
		w.prev.Kind, w.prev.Error = KindStrayBytes, strayMsg
	}
	if stray || closed {
		w.close()
	}
}

const strayMsg = "the server sent bytes after the complete response, before the next request was written (an answer sent twice?): the connection was closed, so no later request takes them for its answer"

func (w *worker) exchange(req []byte) (head, error) {
	written := 0
	if w.raw != nil && w.br.Buffered() == 0 {
		var err error
		if written, err = w.rw.writeThenWait(req); err != nil {
			return head{}, err
		}
	}
	if written < len(req) {
		if _, err := w.conn.Write(req[written:]); err != nil {
			return head{}, err
		}
	}
	h, err := readHead(w.br, w.c.o.Stream)
	if err == nil {
		w.body.reset(w.br, h)
	}
	return h, err
}

// closedConn says whether err is a connection the server closed.
func closedConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dial connects within the connect deadline (and the request's); the
// run's end cuts the connection at once, whatever it is doing.
func (w *worker) dial(runCtx context.Context, deadline time.Time) error {
	o, t := w.c.o, w.c.target
	ctx, cancel := context.WithDeadline(runCtx, deadline)
	defer cancel()
	ctx, cancelConnect := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancelConnect()
	d := net.Dialer{KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return err
	}
	w.raw = nil
	if t.tls {
		host, _, _ := net.SplitHostPort(t.addr)
		tc := tls.Client(conn, &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}})
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return &failure{KindConnect, fmt.Sprintf("TLS handshake with %s: %v", t.addr, err)}
		}
		conn = tc
	} else if sc, ok := conn.(syscall.Conn); ok && canPeek {
		if w.raw, err = sc.SyscallConn(); err != nil {
			w.raw = nil
		} else {
			w.rw = newRawWriter(conn, w.raw)
		}
	}
	w.conn = conn
	w.stopRun = context.AfterFunc(runCtx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	var from io.Reader = conn
	if w.raw != nil {
		from = newRawReader(conn, w.raw)
	}
	if w.br == nil {
		w.br = bufio.NewReaderSize(from, readBuffer)
	} else {
		w.br.Reset(from)
	}
	w.idleSince, w.prev = time.Now(), nil
	return nil
}

func (w *worker) close() {
	if w.conn != nil {
		_ = w.conn.Close() // a connection given up: nothing of it is wanted
		w.stopRun()
		w.conn, w.raw, w.rw, w.prev, w.stopRun = nil, nil, nil, nil, nil
	}
}
