package loadgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/abbench/abbench/digest"
)

// maxEvent bounds one line of a stream: a server that sends more without
// a newline is broken, and the client must not grow without bound.
const maxEvent = 4 << 20

var (
	dataPrefix = []byte("data:")
	doneEvent  = []byte("[DONE]")
)

// readStream reads a streamed response's server-sent events until data:
// [DONE]: the first content is the first token (TTFT), each later one an
// inter-token latency; output tokens are the usage's, else the content
// events counted. A stream that ends before [DONE], or says error, fails.
func readStream(body io.Reader, e Endpoint, p digest.Prompt, sent time.Time, out *Outcome) error {
	r := bufio.NewReaderSize(body, 64<<10)
	var (
		last   time.Time
		events int
		u      *usage
	)
	for {
		line, err := readLine(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return &failure{KindStream, fmt.Sprintf("the stream ended before data: [DONE], after %d content events", events)}
			}
			return err
		}
		payload, ok := bytes.CutPrefix(line, dataPrefix)
		if !ok {
			continue // blank lines, comments, event: and id: fields
		}
		payload = bytes.TrimSpace(payload)
		if bytes.Equal(payload, doneEvent) {
			if events == 0 {
				return &failure{KindStream, "the stream ended without any content"}
			}
			out.E2E = time.Since(sent)
			out.takeUsage(u, countPrompt(p), events)
			return nil
		}
		var c chunk
		if err := json.Unmarshal(payload, &c); err != nil {
			return &failure{KindStream, fmt.Sprintf("a stream event is not JSON: %v", err)}
		}
		if msg := errorText(c.Error); msg != "" {
			return &failure{KindServer, "the server reported an error in the stream: " + msg}
		}
		if c.Usage != nil {
			u = c.Usage
		}
		if c.content(e) == "" {
			continue
		}
		now := time.Now()
		if events == 0 {
			out.TTFT = now.Sub(sent)
		} else {
			out.ITLs = append(out.ITLs, now.Sub(last))
		}
		last = now
		events++
	}
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
			return nil, &failure{KindStream, fmt.Sprintf("a stream line is longer than %d bytes", maxEvent)}
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
