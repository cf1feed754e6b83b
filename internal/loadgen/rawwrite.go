package loadgen

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// rawWriter writes a request on a plain socket and waits until the socket
// is readable (or its deadline passes), all in one RawConn.Read: the
// runtime's poller starts listening before the write, so the answer's
// arrival is never missed, and the read that follows finds the answer
// there. Go's conn.Read would read first, find nothing (a server has not
// answered microseconds after the request) and only then wait: a system
// call a request that wrk never makes. One a connection, its callback
// made once, so a request allocates nothing for it.
type rawWriter struct {
	conn     net.Conn
	rc       syscall.RawConn
	callback func(uintptr) bool // r.step
	// A request's: what to write, how much was written, whether the
	// wait began, the write's error.
	req     []byte
	written int
	waited  bool
	err     error
}

func newRawWriter(conn net.Conn, rc syscall.RawConn) *rawWriter {
	r := &rawWriter{conn: conn, rc: rc}
	r.callback = r.step
	return r
}

// writeThenWait writes req and waits for the answer's first bytes. It
// returns how many bytes of req were written: fewer when the socket could
// not take it all at once, the rest for the caller to write the ordinary
// way (and then read as ever).
func (r *rawWriter) writeThenWait(req []byte) (int, error) {
	r.req, r.written, r.waited, r.err = req, 0, false, nil
	err := r.rc.Read(r.callback)
	r.req = nil
	switch {
	case r.err != nil:
		return r.written, r.err
	case r.written == len(req) && err != nil && !errors.Is(err, os.ErrDeadlineExceeded):
		return r.written, err
	}
	// A deadline that passed while waiting: the read that follows says
	// so, as it would have.
	return r.written, nil
}

// rawReader is a plain socket read for the connection's bufio.Reader
// through RawConn.Read, each read a raw system call (sysRead) where the
// system has them: what conn.Read does, less the runtime's system-call
// bookkeeping. Its deadline is the connection's, and the run's end cuts
// it as it cuts conn. One a connection, its callback made once.
type rawReader struct {
	conn     net.Conn
	rc       syscall.RawConn
	callback func(uintptr) bool // r.step
	// A read's: where to, how much came, its error.
	p   []byte
	n   int
	err error
}

func newRawReader(conn net.Conn, rc syscall.RawConn) *rawReader {
	r := &rawReader{conn: conn, rc: rc}
	r.callback = r.step
	return r
}

// Read reads what has come, waiting for something when nothing has;
// io.EOF when the server closed the connection.
func (r *rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, nil
	err := r.rc.Read(r.callback)
	r.p = nil
	switch {
	case r.err != nil:
		return 0, r.err
	case err != nil:
		return 0, err // the deadline passed, or the connection was closed
	case r.n == 0:
		return 0, io.EOF
	}
	return r.n, nil
}
