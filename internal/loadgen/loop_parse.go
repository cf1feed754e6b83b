package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// The event loop (loop_linux.go) reads a connection's bytes as they come
// and takes a response only once it is whole: parsed then by the same
// strict reader a worker uses (readHead, the body's framing,
// readResponse), over the bytes in memory, so the loop holds a response
// to exactly the caps, framing and checks a worker does.

// errNeedMore is the bytes in memory running out before the response's
// end: the loop waits for more, it is no failure.
var errNeedMore = errors.New("the response is not whole yet")

// maxResponse bounds the bytes a connection holds for one response: its
// head, its body and the drain after it, beyond which it fails
// (oversized) as a worker's read would have.
const maxResponse = maxHead + maxBody + 64<<10

var errResponseTooLarge = &failure{KindOversized, fmt.Sprintf("the response is larger than %d bytes", maxResponse)}

// memReader reads a response's bytes from memory: io.EOF at their end
// once the server closed the connection, errNeedMore before.
type memReader struct {
	data []byte
	off  int
	eof  bool
}

func (m *memReader) Read(p []byte) (int, error) {
	if m.off == len(m.data) {
		if m.eof {
			return 0, io.EOF
		}
		return 0, errNeedMore
	}
	n := copy(p, m.data[m.off:])
	m.off += n
	return n, nil
}

// left is how many bytes the reader has not handed out.
func (m *memReader) left() int { return len(m.data) - m.off }

// taker parses the responses of a loop's connections, one at a time, with
// one reader and one worker's decoding state for them all.
type taker struct {
	mr memReader
	br *bufio.Reader
	w  *worker
}

func newTaker(c *client) *taker {
	t := &taker{w: &worker{c: c}}
	t.br = bufio.NewReaderSize(&t.mr, readBuffer)
	return t
}

// pending is a response taken in parts: how far its bytes were searched
// for a head's end (scanned), its head once whole, and how far its
// chunked body was scanned.
type pending struct {
	buf      []byte
	scanned  int
	haveHead bool
	h        head
	headLen  int
	chunks   chunkScan
}

func (pd *pending) reset() {
	pd.buf, pd.scanned, pd.haveHead, pd.headLen, pd.chunks = pd.buf[:0], 0, false, 0, chunkScan{}
}

// headMayEnd says whether data may hold a whole head: a blank line came
// since the last look, or the bytes are past the head's caps (the reader
// then says so). A head is read again from its start only then, not at
// every piece of it that comes: a server sending its head a byte at a
// time would otherwise have the client read it again a byte at a time.
func (pd *pending) headMayEnd(data []byte) bool {
	if len(data) > maxHead {
		return true
	}
	from := max(pd.scanned-2, 0)
	found := blankLine(data[from:])
	if !found {
		pd.scanned = len(data)
	}
	return found
}

// blankLine says whether data holds "\n\n" or "\n\r\n": one pass from
// line end to line end that stops at the first, the head's end (two
// searches for each passed the whole body when the head had come).
func blankLine(data []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return false
		}
		i += j + 1
		rest := data[i:]
		if len(rest) > 0 && rest[0] == '\n' || len(rest) > 1 && rest[0] == '\r' && rest[1] == '\n' {
			return true
		}
	}
}

// headInPlace takes the head from data in place when it can (the common
// answer: whole, final, within the caps, good); readHead reads any other.
func (pd *pending) headInPlace(data []byte) bool {
	h, n, ok := headInPlace(data, false)
	if ok {
		pd.h, pd.headLen, pd.haveHead = h, n, true
	}
	return ok
}

// took is what take made of a connection's bytes.
type took struct {
	need bool // the response is not whole: wait for more
	keep bool // whole and good, and the connection may carry the next
	err  error
}

// take tries to take the whole response to a request (sent at sent) from
// data, the bytes come so far (eof: and then the connection's end).
func (t *taker) take(pd *pending, data []byte, eof bool, p digest.Prompt, sent time.Time, out *Outcome) took {
	// At the first look the head is taken in place when it can be (most
	// often it came whole in one read), without first searching it for
	// its end; a later look searches only what came since the last.
	inPlace := !pd.haveHead && pd.scanned == 0 && pd.headInPlace(data)
	if !pd.haveHead && !eof && !pd.headMayEnd(data) {
		return took{need: true}
	}
	t.mr = memReader{data: data, eof: eof}
	t.br.Reset(&t.mr)
	switch {
	case inPlace || pd.haveHead || pd.headInPlace(data):
		t.mr.off = pd.headLen
	default:
		h, err := readHead(t.br, false)
		switch {
		case errors.Is(err, errNeedMore):
			pd.scanned = len(data)
			return took{need: true}
		case err != nil:
			return took{err: err}
		}
		pd.h, pd.headLen, pd.haveHead = h, t.mr.off-t.br.Buffered(), true
	}
	// The head read just now by readHead, the reader is where its body
	// starts (what it read ahead is in its buffer); taken in place or
	// before, it starts there.
	if !eof && !pd.bodyMayBeWhole(data[pd.headLen:]) {
		return took{need: true}
	}
	if r, ok := t.whole(pd.h, data[pd.headLen:], p, sent, out); ok {
		return r
	}
	return t.body(pd.h, p, sent, out)
}

// whole takes the common answer, a 200 of a Content-Length within
// maxBody not streamed, all of whose body is in rest, straight from rest
// (false: any other, for body): what body makes of it, without reading
// it again through the reader, a limit and a copy. Its stray bytes are
// those after the length, as the reader would have left them.
func (t *taker) whole(h head, rest []byte, p digest.Prompt, sent time.Time, out *Outcome) (took, bool) {
	o := t.w.c.o
	if h.status != 200 || o.Stream || h.chunked || h.length < 0 || h.length > maxBody || int64(len(rest)) < h.length {
		return took{}, false
	}
	out.Status = h.status
	err := decodeResponse(rest[:h.length], &t.w.chunk, o, p, sent, out)
	ok := err == nil && !h.close
	if ok && int64(len(rest)) > h.length {
		err, ok = &failure{KindStrayBytes, strayMsg}, false
	}
	return took{keep: ok, err: err}, true
}

// body reads the body of h and says whether the connection may be kept.
func (t *taker) body(h head, p digest.Prompt, sent time.Time, out *Outcome) took {
	w := t.w
	w.body.reset(t.br, h)
	saved := *out
	err := w.readResponse(h, p, sent, out)
	if errors.Is(err, errNeedMore) {
		*out = saved
		return took{need: true}
	}
	ok := err == nil && !h.close
	if ok {
		ok = w.body.finish(64 << 10)
		if errors.Is(t.mr.err(), errNeedMore) && !ok {
			*out = saved
			return took{need: true}
		}
	}
	if ok && t.br.Buffered()+t.mr.left() > 0 {
		err, ok = &failure{KindStrayBytes, strayMsg}, false
	}
	return took{keep: ok, err: err}
}

// err is errNeedMore when the reader ran out before the connection's end.
func (m *memReader) err() error {
	if m.off == len(m.data) && !m.eof {
		return errNeedMore
	}
	return nil
}

// bodyMayBeWhole says whether rest, the bytes after the head, may hold
// what the worker's reading of this body reads: the body whole, or as
// much of it as that reading takes before it fails (a body over maxBody,
// an error status's first 64 KiB). When it says yes too early, the
// reading runs out (errNeedMore) and the loop waits.
func (pd *pending) bodyMayBeWhole(rest []byte) bool {
	h := &pd.h
	limit := int64(maxBody + 1)
	if h.status != 200 {
		limit = 64 << 10
	}
	switch {
	case !h.hasBody():
		return true
	case h.chunked:
		return pd.chunks.whole(rest) || int64(len(rest)) > limit
	case h.length >= 0:
		return int64(len(rest)) >= min(h.length, limit)
	}
	return int64(len(rest)) > limit // the body ends with the connection
}

// chunkScan finds the end of a chunked body as its bytes come, without
// scanning again what it has passed: at is where the next chunk's size
// line starts, trailer whether the last chunk was passed (at is then
// where the next trailer line starts). It only says when to read the
// body: the chunked reader is the judge of its format, so anything it
// cannot follow says "whole" and lets the reader fail.
type chunkScan struct {
	at      int
	trailer bool
}

func (s *chunkScan) whole(rest []byte) bool {
	for {
		i := bytes.IndexByte(rest[s.at:], '\n')
		if i < 0 {
			return len(rest)-s.at > 4096 // a longer line: the reader refuses it
		}
		line := bytes.TrimRight(rest[s.at:s.at+i], "\r")
		next := s.at + i + 1
		if s.trailer {
			if len(line) == 0 {
				return true
			}
			s.at = next
			continue
		}
		size, ok := chunkSize(line)
		switch {
		case !ok:
			return true
		case size == 0:
			s.at, s.trailer = next, true
			continue
		case size > maxResponse || next+size+2 > len(rest):
			return size > maxResponse
		}
		s.at = next + size + 2
	}
}

// chunkSize is a chunk size line's size (its extensions left aside).
func chunkSize(line []byte) (int, bool) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(line) > 8 {
		return 0, false
	}
	n := 0
	for _, c := range line {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int(d)
	}
	return n, true
}
