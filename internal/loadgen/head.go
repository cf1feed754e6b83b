package loadgen

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http/httputil"
	"strconv"
	"strings"
)

// head is what the client takes of a response's head: the status and the
// body's framing, read in place from the connection's buffer (no header
// map, no copies), strictly: a head the client cannot frame is a failed
// request and its connection is closed.
type head struct {
	status int
	// length is the Content-Length, -1 when none.
	length  int64
	chunked bool
	// close says the connection ends after this response: Connection:
	// close, HTTP/1.0 without keep-alive, or a body framed by the close.
	close bool
	// eventStream says Content-Type is text/event-stream.
	eventStream bool
	// contentType is kept only when a stream was asked for (keepType) and
	// it is not an event stream, for that error: a string made of it for
	// every whole response would be an allocation a request.
	contentType string
	keepType    bool
	// http10, keepAlive and sawLength decide close once the head is read.
	http10, keepAlive, sawLength bool
}

// The header names the client reads, lower-case: a name is a token
// (ASCII alone), so folding its ASCII letters is all EqualFold would do.
const (
	headerContentLength    = "content-length"
	headerTransferEncoding = "transfer-encoding"
	headerConnection       = "connection"
	headerContentType      = "content-type"
)

var eventStreamType = []byte("text/event-stream")

var (
	errHeadTooLarge     = &failure{KindOversized, fmt.Sprintf("the response head is over its caps (%d bytes in all, %d a line)", maxHead, readBuffer)}
	errConnectionClosed = &failure{KindConnectionClosed, "the server closed the connection after the request was written, before any byte of an answer: it may have been served, so it is not sent again"}
)

func badHead(format string, args ...any) error {
	return &failure{KindResponse, "the response head: " + fmt.Sprintf(format, args...)}
}

// readHead reads a response's head from br, at most maxHead bytes, passing
// over interim (1xx) responses; keepType keeps a Content-Type other than
// an event stream (a stream was asked for: the error names it).
func readHead(br *bufio.Reader, keepType bool) (head, error) {
	if _, err := br.Peek(1); err != nil && closedConn(err) {
		return head{}, errConnectionClosed
	}
	budget := maxHead
	for {
		h, err := readOneHead(br, &budget, keepType)
		if err != nil || h.status >= 200 || h.status == 101 {
			return h, err
		}
	}
}

// readLineIn reads one line of a head, without its CRLF, from budget.
func readLineIn(br *bufio.Reader, budget *int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	*budget -= len(line)
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || *budget < 0:
		return nil, errHeadTooLarge
	case err != nil:
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}

func readOneHead(br *bufio.Reader, budget *int, keepType bool) (head, error) {
	h := head{length: -1, keepType: keepType}
	line, err := readLineIn(br, budget)
	if err != nil {
		return h, err
	}
	if err := h.statusLine(line); err != nil {
		return h, err
	}
	for {
		if line, err = readLineIn(br, budget); err != nil {
			return h, err
		}
		if len(line) == 0 {
			break
		}
		if err := h.header(line); err != nil {
			return h, err
		}
	}
	h.settle()
	return h, nil
}

// statusLine takes a head's first line: HTTP/1.x SP 3DIGIT [SP reason].
func (h *head) statusLine(line []byte) error {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[7] < '0' || line[7] > '9' || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return badHead("status line %q is not HTTP/1.x", truncate(string(line)))
	}
	h.http10 = line[7] == '0'
	// Three digits, read as such: anything else strconv.Atoi would take
	// (a sign) is below 100, and refused as that is.
	code := line[9:12]
	if !isDigit(code[0]) || !isDigit(code[1]) || !isDigit(code[2]) {
		return badHead("status line %q has no status code", truncate(string(line)))
	}
	if h.status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0'); h.status < 100 {
		return badHead("status line %q has no status code", truncate(string(line)))
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// settle decides, once every header is read, whether the connection
// closes after the response and its length.
func (h *head) settle() {
	switch {
	case h.http10 && !h.keepAlive:
		h.close = true // HTTP/1.0 closes unless it says keep-alive
	case h.chunked && h.sawLength:
		h.close = true // both framings: chunked wins, the connection is not trusted further
	case !h.chunked && h.length < 0 && h.hasBody():
		h.close = true // the body ends with the connection
	}
	if h.chunked {
		h.length = -1
	}
}

// headInPlace reads a final (not interim) response's head from data in
// place, where readHead would copy it into its reader's buffer and read
// it line by line: what readHead makes of the same bytes, and n the
// head's length, when ok. Anything else (the head not whole, over a cap,
// interim, or refused) is not ok, and readHead reads it, so a refusal is
// always readHead's own. A head within readBuffer holds no line longer
// than its reader's buffer, and within maxHead passes its budget.
func headInPlace(data []byte, keepType bool) (h head, n int, ok bool) {
	h = head{length: -1, keepType: keepType}
	data = data[:min(len(data), readBuffer, maxHead)]
	for first := true; ; first = false {
		i := bytes.IndexByte(data[n:], '\n')
		if i < 0 {
			return h, 0, false
		}
		line := bytes.TrimSuffix(data[n:n+i], []byte("\r"))
		n += i + 1
		switch {
		case first:
			if h.statusLine(line) != nil || h.status < 200 {
				return h, 0, false
			}
		case len(line) == 0:
			h.settle()
			return h, n, true
		case h.header(line) != nil:
			return h, 0, false
		}
	}
}

// header takes one header line.
func (h *head) header(line []byte) error {
	if line[0] == ' ' || line[0] == '\t' {
		return badHead("a folded header line (obsolete, and ambiguous)")
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !validName(name) || !validValue(value) {
		return badHead("header line %q is not a name (a token) and a value", truncate(string(line)))
	}
	// Only four names matter, each of its own length: a name is folded
	// only against the one of its length (EqualFold on every header of
	// every answer was a tenth of the client's own work a request), its
	// letters lower-cased as they are compared.
	switch len(name) {
	case len(headerContentLength):
		if asciiLowerEqual(name, headerContentLength) {
			return h.contentLength(bytes.TrimSpace(value))
		}
	case len(headerTransferEncoding):
		if asciiLowerEqual(name, headerTransferEncoding) {
			return h.transferEncoding(bytes.TrimSpace(value))
		}
	case len(headerConnection):
		if asciiLowerEqual(name, headerConnection) {
			h.connection(bytes.TrimSpace(value))
		}
	case len(headerContentType):
		if asciiLowerEqual(name, headerContentType) {
			h.setContentType(bytes.TrimSpace(value))
		}
	}
	return nil
}

func (h *head) contentLength(value []byte) error {
	// The digits alone, as every server sends them, without strconv's
	// general parse; anything else is strconv's to take or refuse.
	small, ok := smallCount(value)
	n := int64(small)
	var err error
	if !ok {
		n, err = strconv.ParseInt(string(value), 10, 64)
	}
	if err != nil || len(value) == 0 || value[0] < '0' || value[0] > '9' || (h.sawLength && n != h.length) {
		return badHead("Content-Length %q (with %d before)", truncate(string(value)), h.length)
	}
	h.length, h.sawLength = n, true
	return nil
}

func (h *head) transferEncoding(value []byte) error {
	if !bytes.EqualFold(value, []byte("chunked")) || h.chunked {
		return badHead("Transfer-Encoding %q: only one chunked is asked for", truncate(string(value)))
	}
	h.chunked = true
	return nil
}

func (h *head) connection(value []byte) {
	for tok := range bytes.SplitSeq(value, []byte(",")) {
		tok = bytes.TrimSpace(tok)
		h.close = h.close || bytes.EqualFold(tok, []byte("close"))
		h.keepAlive = h.keepAlive || bytes.EqualFold(tok, []byte("keep-alive"))
	}
}

func (h *head) setContentType(value []byte) {
	h.eventStream = bytes.HasPrefix(value, eventStreamType)
	if h.eventStream && len(value) > len(eventStreamType) {
		mt, _, err := mime.ParseMediaType(string(value))
		h.eventStream = err == nil && mt == string(eventStreamType)
	}
	if h.contentType = ""; !h.eventStream && h.keepType {
		h.contentType = truncate(string(value))
	}
}

// tokenByte marks the token characters (RFC 9110, 5.6.2), valueByte
// the bytes a header's value may hold (none of the controls but a tab):
// one look-up a byte, for every header line of every answer.
var tokenByte, valueByte = func() (tok, val [256]bool) {
	for c := range 256 {
		tok[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", byte(c)) >= 0
		val[c] = (c >= 0x20 || c == '\t') && c != 0x7f
	}
	return tok, val
}()

// validName says whether name is a header name: one or more token
// characters, as net/http holds it.
func validName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if !tokenByte[c] {
			return false
		}
	}
	return true
}

// validValue says whether value holds no control character but a tab:
// eight bytes at a time while none is below 0x20 or DEL (noControl),
// then a byte at a time from the word that may hold one.
func validValue(value []byte) bool {
	i := 0
	for ; i+8 <= len(value) && noControl(binary.LittleEndian.Uint64(value[i:])); i += 8 {
	}
	for _, c := range value[i:] {
		if !valueByte[c] {
			return false
		}
	}
	return true
}

// noControl says whether none of the eight bytes of x is below 0x20 or
// DEL (0x7f): a byte below 0x20 wraps its subtraction, DEL plus one has
// its high bit, and so does a byte past ASCII, which noControl leaves
// to the byte-at-a-time look (false is only "look closer").
func noControl(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return ((x-ones*0x20)|(x+ones))&highs == 0
}

// hasBody says whether a response of h's status has a body.
func (h *head) hasBody() bool {
	return h.status >= 200 && h.status != 204 && h.status != 304
}

// bodyReader is a response's body: its length, its chunks, or what comes
// until the connection ends.
type bodyReader struct {
	br      *bufio.Reader
	limited io.LimitedReader
	chunked io.Reader
	r       io.Reader
	isChunk bool
	// drain is what finish reads into: here, not on the stack, where
	// handing it to a Reader would move it to the heap each request.
	drain [512]byte
}

// reset frames the body of h.
func (b *bodyReader) reset(br *bufio.Reader, h head) {
	b.br, b.isChunk = br, false
	switch {
	case !h.hasBody():
		b.limited = io.LimitedReader{R: br, N: 0}
		b.r = &b.limited
	case h.chunked:
		b.chunked, b.isChunk = httputil.NewChunkedReader(br), true
		b.r = b.chunked
	case h.length >= 0:
		b.limited = io.LimitedReader{R: br, N: h.length}
		b.r = &b.limited
	default:
		b.r = br
	}
}

// Read reads the body; a body cut short of its Content-Length is an
// unexpected EOF, never a shorter body.
func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF && b.r == &b.limited && b.limited.N > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// finish reads what is left of the body, at most limit bytes, and a
// chunked body's trailer: true when the body ended there, so the
// connection is where the next response begins.
func (b *bodyReader) finish(limit int64) bool {
	// Read into the reader's own buffer, not through io.Copy and a
	// LimitReader: a request's drain, most often of nothing left, then
	// allocates nothing.
	for n := int64(0); ; {
		m, err := b.Read(b.drain[:min(int64(len(b.drain)), limit+1-n)])
		n += int64(m)
		if n > limit || err != nil && err != io.EOF {
			return false
		}
		if err == io.EOF {
			break
		}
	}
	if !b.isChunk {
		return true
	}
	budget := maxHead
	for {
		line, err := readLineIn(b.br, &budget)
		if err != nil {
			return false
		}
		if len(line) == 0 {
			return true
		}
	}
}
