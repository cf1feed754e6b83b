package loadgen

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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

// worker sends one request at a time over a connection of its own, kept
// alive between requests: reading and writing it itself, with none of
// the hand-offs between goroutines by which net/http's client spends
// several times what wrk spends on a request.
type worker struct {
	c    *client
	conn net.Conn
	br   *bufio.Reader
	// reused says the connection served a request before this one.
	reused bool
}

// roundTrip writes req and reads the response's head; ctx ending cuts the
// connection at once. The caller reads the body and calls done.
func (w *worker) roundTrip(ctx context.Context, req []byte) (*http.Response, func(ok bool), error) {
	for attempt := 0; ; attempt++ {
		if w.conn == nil {
			if err := w.dial(ctx); err != nil {
				return nil, nil, err
			}
		}
		conn := w.conn
		stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
		done := func(ok bool) {
			if !stop() || !ok {
				w.close() // cut by the context, or in an unknown state
			}
		}
		resp, err := w.exchange(req)
		if err == nil {
			return resp, func(ok bool) { done(ok && !resp.Close) }, nil
		}
		reused := w.reused
		done(false)
		// A kept-alive connection the server closed while idle fails
		// before any byte of a response: the request was not served; once
		// more, on a new connection, as net/http and browsers do.
		if attempt > 0 || !reused || ctx.Err() != nil || !closedIdle(err) {
			return nil, nil, err
		}
	}
}

func (w *worker) exchange(req []byte) (*http.Response, error) {
	if _, err := w.conn.Write(req); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(w.br, nil)
	if err != nil {
		return nil, err
	}
	w.reused = true
	return resp, nil
}

// closedIdle says whether err is a connection the server had closed.
func closedIdle(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dial connects within the connect deadline (and the request's).
func (w *worker) dial(ctx context.Context) error {
	o, t := w.c.o, w.c.target
	ctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout)
	defer cancel()
	d := net.Dialer{KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return err
	}
	if t.tls {
		host, _, _ := net.SplitHostPort(t.addr)
		tc := tls.Client(conn, &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}})
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return &failure{KindConnect, fmt.Sprintf("TLS handshake with %s: %v", t.addr, err)}
		}
		conn = tc
	}
	w.conn, w.br, w.reused = conn, bufio.NewReaderSize(conn, 64<<10), false
	return nil
}

func (w *worker) close() {
	if w.conn != nil {
		_ = w.conn.Close() // a connection given up: nothing of it is wanted
		w.conn, w.br = nil, nil
	}
}
