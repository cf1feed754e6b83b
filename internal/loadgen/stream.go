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

// Caps on a stream: every worker may hold one event line, and a request's
// kept inter-token latencies are one per content event.
const (
	// maxEvent bounds one line of a stream: a server that sends more
	// without a newline is broken, and the client must not grow with it.
	maxEvent = 1 << 20
	// maxEvents bounds the content events of a stream when max_tokens is
	// not sent (with it, max_tokens does): above any model's context.
	maxEvents = 1 << 20
)

var (
	dataPrefix = []byte("data:")
	doneEvent  = []byte("[DONE]")
)

// readStream reads a streamed response's server-sent events until data:
// [DONE]: the first content is the first token (TTFT), each later one an
// inter-token latency; output tokens are the usage's, else the content
// events counted. A stream that ends before [DONE], or says error, fails;
// so does one of more content events than max_tokens (cut there: each
// event carries a token at least) and a usage the events belie. Each
// event is decoded into c, whose room is reused.
func readStream(r *bufio.Reader, c *chunk, o Options, p digest.Prompt, sent time.Time, out *Outcome) error {
	s := streamState{o: o, out: out, sent: sent, c: c}
	for {
		line, err := readLine(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return &failure{KindStream, fmt.Sprintf("the stream ended before data: [DONE], after %d content events", s.events)}
			}
			return err
		}
		payload, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			continue // blank lines, comments, event: and id: fields
		}
		payload = bytes.TrimSpace(payload)
		if bytes.Equal(payload, doneEvent) {
			return s.done(p)
		}
		if err := s.event(payload); err != nil {
			return err
		}
	}
}

// streamState is a stream read so far.
type streamState struct {
	o      Options
	out    *Outcome
	sent   time.Time
	last   time.Time
	events int
	// u is the last usage an event gave, when hasU: a copy, as c is
	// decoded into again by the next event.
	u    usage
	hasU bool
	c    *chunk
}

// event takes one data: event other than [DONE].
func (s *streamState) event(payload []byte) error {
	c := s.c
	if err := decodeChunk(payload, c); err != nil {
		return &failure{KindStream, fmt.Sprintf("a stream event is not JSON: %v", err)}
	}
	if msg := errorText(c.Error); msg != "" {
		return &failure{KindServer, "the server reported an error in the stream: " + msg}
	}
	if c.hasUsage {
		s.u, s.hasU = c.Usage, true
	}
	if !c.hasContent(s.o.Endpoint) {
		return nil
	}
	switch limit := s.o.MaxTokens; {
	case limit > 0 && s.events >= limit:
		return &failure{KindOverMaxTokens, fmt.Sprintf("more content events than max_tokens %d (each carries a token at least): the stream was cut at event %d", limit, s.events+1)}
	case s.events >= maxEvents:
		return &failure{KindOversized, fmt.Sprintf("more than %d content events in one stream: cut there", maxEvents)}
	}
	now := time.Now()
	if s.events == 0 {
		s.out.TTFT = now.Sub(s.sent)
	} else {
		s.out.ITLs = append(s.out.ITLs, now.Sub(s.last))
	}
	s.last = now
	s.events++
	return nil
}

// done ends a stream at data: [DONE].
func (s *streamState) done(p digest.Prompt) error {
	if s.events == 0 {
		return &failure{KindStream, "the stream ended without any content"}
	}
	var u *usage
	if s.hasU {
		u = &s.u
	}
	if err := checkUsage(u, s.o.MaxTokens, s.events); err != nil {
		return err
	}
	s.out.E2E = time.Since(s.sent)
	s.out.takeUsage(u, countPrompt(p), s.events)
	return nil
}

// readLine reads one line without its line ending, at most maxEvent long.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if err == nil && line == nil {
			return bytes.TrimRight(frag, "\r\n"), nil // valid until the next read: the caller is done with it by then
		}
		line = append(line, frag...)
		if len(line) > maxEvent {
			return nil, &failure{KindOversized, fmt.Sprintf("a stream line is longer than %d bytes", maxEvent)}
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r\n"), nil
		default:
			return nil, err
		}
	}
}
