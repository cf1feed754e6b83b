package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hostile is a server on 127.0.0.1 that writes raw bytes: it reads each
// request whole, counts it, and hands the connection to answer, which
// says whether to read the next request on it.
type hostile struct {
	reads  atomic.Int64
	answer func(c net.Conn, n int64, onConn int) bool
}

func (h *hostile) start(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go h.serve(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

func (h *hostile) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for onConn := 0; ; onConn++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		if !h.answer(c, h.reads.Add(1), onConn) {
			return
		}
	}
}

// allocated runs f and says how many bytes the heap allocated meanwhile.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sentCount is the requests the client says it sent.
func sentCount(res *Result) int64 {
	var n int64
	for _, o := range res.Outcomes {
		if o.Kind != KindNotSent {
			n++
		}
	}
	return n
}

const okBody = `{"choices": [{"text": "a"}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}`

func okResponse() string {
	return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(okBody), okBody)
}

// TestHostileEndlessHeader: a response head that never ends (one header
// line of 64 MiB, then nothing) is cut at the head cap and counted as a
// failure of kind oversized; the client does not grow with it.
func TestHostileEndlessHeader(t *testing.T) {
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Endless: "); err != nil {
			return false
		}
		line := bytes.Repeat([]byte("a"), 64<<10)
		for range 1024 { // 64 MiB at most, so the old client's growth is bounded too
			if _, err := c.Write(line); err != nil {
				return false
			}
		}
		time.Sleep(5 * time.Second)
		return false
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 1)
	var res *Result
	grew := allocated(func() {
		var err error
		res, err = Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 1, RequestTimeout: 3 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
	})
	if o := res.Outcomes[0]; o.Kind != KindOversized || !strings.Contains(o.Error, "head") {
		t.Errorf("outcome %+v, want a failure of kind %s naming the head", o, KindOversized)
	}
	if grew > 16<<20 {
		t.Errorf("the client allocated %d MiB reading one endless head", grew>>20)
	}
	if h.reads.Load() != sentCount(res) {
		t.Errorf("the server read %d requests, the client says it sent %d", h.reads.Load(), sentCount(res))
	}
}

// TestHostileEndlessStream: a stream of one-token events past max_tokens
// (200,000 of them for max_tokens 4, then [DONE]) is cut at the fifth and
// fails over-max-tokens; nothing of the rest is kept.
func TestHostileEndlessStream(t *testing.T) {
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		w := bufio.NewWriterSize(c, 64<<10)
		fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
		for range 200_000 {
			if _, err := w.WriteString("data: {\"choices\": [{\"text\": \"x\"}]}\n\n"); err != nil {
				return false
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
		_ = w.Flush()
		return false
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 1)
	dir := t.TempDir()
	var res *Result
	grew := allocated(func() {
		var err error
		res, err = Run(context.Background(), prompts, Options{URL: url, Model: "m", Stream: true, MaxTokens: 4, Requests: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Write(Files{Record: filepath.Join(dir, "r.json"), PerRequest: filepath.Join(dir, "r.jsonl")}); err != nil {
			t.Fatal(err)
		}
	})
	if o := res.Outcomes[0]; o.Kind != KindOverMaxTokens || len(o.ITLs) > 4 {
		t.Errorf("outcome kind %q error %q with %d ITLs, want %s and at most 4", o.Kind, o.Error, len(o.ITLs), KindOverMaxTokens)
	}
	if grew > 16<<20 {
		t.Errorf("the client allocated %d MiB reading one endless stream", grew>>20)
	}
	for _, name := range []string{"r.json", "r.jsonl"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() > 64<<10 {
			t.Errorf("%s: %v, %d bytes for one request", name, err, fi.Size())
		}
	}
}

// TestHostileDroppedPostIsNeverSentAgain: a server that answers the first
// request of each connection and reads the second, then closes without an
// answer, gets each request once: a written request that got no answer is
// a failure (connection-closed), never sent again.
func TestHostileDroppedPostIsNeverSentAgain(t *testing.T) {
	h := &hostile{answer: func(c net.Conn, _ int64, onConn int) bool {
		if onConn > 0 {
			return false // read, then dropped
		}
		_, err := io.WriteString(c, okResponse())
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 8)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 8})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if h.reads.Load() != 8 || sentCount(res) != 8 {
		t.Errorf("the server read %d requests, the client sent %d: want 8 and 8", h.reads.Load(), sentCount(res))
	}
	if s.Completed != 4 || s.Failures[KindConnectionClosed] != 4 {
		t.Errorf("summary %+v, want 4 completed and 4 %s", s, KindConnectionClosed)
	}
}

// TestServerClosedIdleConnectionIsNotAFailure: a kept-alive connection
// the server closed while idle is seen closed before the next request is
// written on it, which goes on a new connection: nothing was sent twice.
func TestServerClosedIdleConnectionIsNotAFailure(t *testing.T) {
	closed := make(chan struct{}, 4)
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		_, _ = io.WriteString(c, okResponse())
		c.Close()
		closed <- struct{}{}
		return false
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 2)
	o := Options{URL: url, Model: "m", Requests: 2}.withDefaults()
	c, err := newClient(o, PromptItems(prompts))
	if err != nil {
		t.Fatal(err)
	}
	c.start = time.Now()
	w := &worker{c: c}
	defer w.close()
	for i := range 2 {
		out := Outcome{Sent: true}
		w.do(context.Background(), &out, c.prompts[i], c.requests[i])
		if !out.OK() {
			t.Fatalf("request %d: %+v", i, out)
		}
		<-closed
		time.Sleep(20 * time.Millisecond) // the FIN on its way
	}
	if h.reads.Load() != 2 {
		t.Errorf("the server read %d requests, want 2", h.reads.Load())
	}
}

// TestHostileUsageIsHeldToWhatCame: a server's usage that says more
// tokens than max_tokens, or fewer than the content events it streamed,
// is a failure of its kind, not a count.
func TestHostileUsageIsHeldToWhatCame(t *testing.T) {
	stream := func(events, completion int) string {
		var b strings.Builder
		for range events {
			b.WriteString("data: {\"choices\": [{\"text\": \"t\"}]}\n\n")
		}
		fmt.Fprintf(&b, "data: {\"choices\": [], \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": %d}}\n\ndata: [DONE]\n\n", completion)
		return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + b.String()
	}
	whole := func(completion int) string {
		body := fmt.Sprintf(`{"choices": [{"text": "a b c d"}], "usage": {"prompt_tokens": 3, "completion_tokens": %d}}`, completion)
		return fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	}
	for _, tc := range []struct {
		name, answer string
		stream       bool
		kind         string
	}{
		{"stream-over-max", stream(4, 1_000_000), true, KindOverMaxTokens},
		{"stream-fewer-than-events", stream(4, 2), true, KindUsageMismatch},
		{"stream-agrees", stream(4, 4), true, ""},
		{"whole-over-max", whole(1_000_000), false, KindOverMaxTokens},
		{"whole-none-for-content", whole(0), false, KindUsageMismatch},
		{"whole-agrees", whole(4), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
				_, _ = io.WriteString(c, tc.answer)
				return false
			}}
			url := h.start(t)
			_, prompts := tokenPrompts(t, 4)
			res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Stream: tc.stream, MaxTokens: 4, Requests: 4})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summarize()
			if tc.kind == "" {
				if s.Completed != 4 || s.OutputTokens != 16 {
					t.Errorf("summary %+v, want 4 completed of 4 tokens each", s)
				}
				return
			}
			if s.Failures[tc.kind] != 4 || s.OutputTokens != 0 {
				t.Errorf("summary %+v, want 4 failed %s", s, tc.kind)
			}
		})
	}
}

// TestHostileAnswerSentTwice: a server that answers every request twice
// on a kept-alive connection never has its second answer taken for the
// next request's: the request the stray answer follows fails
// (stray-bytes), its connection is closed, and the server reads every
// request the client sent.
func TestHostileAnswerSentTwice(t *testing.T) {
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		_, err := io.WriteString(c, okResponse()+okResponse())
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 10)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if h.reads.Load() != sentCount(res) || sentCount(res) != 10 {
		t.Errorf("the server read %d requests, the client sent %d", h.reads.Load(), sentCount(res))
	}
	if s.Failures[KindStrayBytes] != 10 {
		t.Errorf("summary %+v, want 10 %s", s, KindStrayBytes)
	}
}

// TestHostileAnswerSentTwiceLater: a second answer that comes while the
// connection is idle is seen when the next request is about to be
// written on it (the peek): the request it follows fails stray-bytes,
// though that request had ended. Its outcome is counted only once no
// later look at its connection can fail it (counted as it ended, the
// run said every request succeeded).
func TestHostileAnswerSentTwiceLater(t *testing.T) {
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		if _, err := io.WriteString(c, okResponse()); err != nil {
			return false
		}
		time.Sleep(2 * time.Millisecond)
		_, err := io.WriteString(c, okResponse())
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 10)
	// 10 ms between requests, nearly regular: each is written on a
	// connection idle for longer than peekAfter, its stray answer there.
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 10, Rate: 100, Burstiness: 1000})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if h.reads.Load() != sentCount(res) || sentCount(res) != 10 {
		t.Errorf("the server read %d requests, the client sent %d", h.reads.Load(), sentCount(res))
	}
	if s.Failures[KindStrayBytes] < 5 {
		t.Errorf("summary %+v: want most of the 9 requests followed by another failed %s", s, KindStrayBytes)
	}
	if n := len(res.Outcomes); n != 10 || res.FirstFailure() == nil || res.FirstFailure().Kind != KindStrayBytes {
		t.Errorf("%d outcomes, the first failure %+v", n, res.FirstFailure())
	}
}

// TestHostileSecretQuotedBack: a 401 whose body quotes the API key (in
// clear, JSON-escaped, and across the point where an error is cut short)
// and a secret the scenario drew from the environment leaves neither in
// any file written nor in the summary.
func TestHostileSecretQuotedBack(t *testing.T) {
	const key = "sk-abc/def+ghi<jkl>0123456789"
	const other = "hunter2-from-env"
	h := &hostile{answer: func(c net.Conn, n int64, _ int) bool {
		var msg string
		switch n % 3 {
		case 0:
			msg = fmt.Sprintf(`{"error": {"message": "invalid key Bearer %s (%s)"}}`, key, other)
		case 1:
			msg = fmt.Sprintf(`{"detail": "%s%s %s"}`, strings.Repeat(".", 290), strings.ReplaceAll(key, "/", `\/`), other)
		default:
			msg = fmt.Sprintf(`{"error": "key \u0022%s\u0022 %s"}`, strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(key), other)
		}
		_, err := fmt.Fprintf(c, "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(msg), msg)
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 6)
	o := Options{URL: url, Model: "m", Requests: 6, APIKey: key}
	o.Secrets.Add(other)
	res, err := Run(context.Background(), prompts, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := res.Write(Files{Record: filepath.Join(dir, "r.json"), PerRequest: filepath.Join(dir, "r.jsonl")}); err != nil {
		t.Fatal(err)
	}
	var summary bytes.Buffer
	if err := res.PrintSummary(&summary); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"summary": summary.String()}
	for _, name := range []string{"r.json", "r.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(data)
	}
	redacted := 0
	for _, o := range res.Outcomes {
		texts[fmt.Sprintf("outcome %d", o.Index)] = o.Error
		if o.Kind != KindHTTP || o.Status != 401 {
			t.Errorf("outcome %+v, want an HTTP 401", o)
		}
		if strings.Contains(o.Error, "[REDACTED]") {
			redacted++
		}
	}
	if redacted != 4 { // the other two are cut short before the key's place
		t.Errorf("%d errors show [REDACTED], want the 4 that quote the key early", redacted)
	}
	for where, text := range texts {
		for _, secret := range []string{key[:10], `sk-abc\/def`, `ghi\u003cjkl`, "0123456789", other} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
	}
}

// TestHostileFraming: a head or body the client cannot frame is a failed
// request, never a shorter or merged answer.
func TestHostileFraming(t *testing.T) {
	for _, tc := range []struct{ name, answer, kind string }{
		{"body-cut-short", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n" + okBody, KindNetwork},
		{"two-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 11\r\n\r\n0123456789", KindResponse},
		{"not-http", "SSH-2.0-OpenSSH\r\n\r\n", KindResponse},
		{"gzip-coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", KindResponse},
		{"folded", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n x: y\r\nContent-Length: 2\r\n\r\n{}", KindResponse},
		{"header-line-over-the-buffer", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", KindOversized},
		{"continue-then-answer", "HTTP/1.1 100 Continue\r\n\r\n" + okResponse(), ""},
		{"chunked-with-trailer", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\nX-T: 1\r\n\r\n", len(okBody), okBody), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
				_, err := io.WriteString(c, tc.answer)
				if tc.kind == KindNetwork {
					return false
				}
				return err == nil
			}}
			url := h.start(t)
			_, prompts := tokenPrompts(t, 3)
			res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 3, RequestTimeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summarize()
			if (tc.kind == "" && s.Completed != 3) || (tc.kind != "" && s.Failures[tc.kind] != 3) {
				t.Errorf("summary %+v, want 3 %q; first %+v", s, tc.kind, res.Outcomes[0])
			}
			if h.reads.Load() != 3 {
				t.Errorf("the server read %d requests, want 3", h.reads.Load())
			}
		})
	}
}

// FuzzReadHead: any bytes a server sends as a response head are read
// within the caps, without a panic, into a head whose framing holds
// together; a head read is one net/http reads too, with the same status.
func FuzzReadHead(f *testing.F) {
	for _, seed := range []string{
		okResponse(), "HTTP/1.1 100 Continue\r\n\r\n" + okResponse(), "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX: y\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\r\ndata: x\n\n",
		"HTTP/1.1 200\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 200 OK\n\n", "HTTP/1.1 999 X\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A head the loop takes in place is readHead's, to the byte.
		if hp, n, ok := headInPlace(data, true); ok {
			r := bytes.NewReader(data)
			br := bufio.NewReaderSize(r, readBuffer)
			h, err := readHead(br, true)
			if read := len(data) - r.Len() - br.Buffered(); err != nil || h != hp || read != n {
				t.Fatalf("%q: in place %+v (%d bytes), readHead %+v (%d bytes), %v", data, hp, n, h, read, err)
			}
		}
		h, err := readHead(bufio.NewReaderSize(bytes.NewReader(data), readBuffer), true)
		if err != nil {
			return
		}
		if h.status < 100 || h.status > 999 || h.length < -1 || (h.chunked && h.length != -1) || (!h.chunked && h.length < 0 && h.hasBody() && !h.close) {
			t.Fatalf("%q: head %+v", data, h)
		}
		var b bodyReader
		br := bufio.NewReaderSize(bytes.NewReader(data), readBuffer)
		if h2, err := readHead(br, true); err != nil || h2 != h {
			t.Fatalf("%q: read again %+v, %v", data, h2, err)
		}
		b.reset(br, h)
		b.finish(1 << 20)
		hr := bufio.NewReader(bytes.NewReader(data))
		resp, err := http.ReadResponse(hr, nil)
		for err == nil && resp.StatusCode < 200 && resp.StatusCode != 101 { // interim answers, as net/http's Transport passes over them
			resp, err = http.ReadResponse(hr, nil)
		}
		if err != nil || resp.StatusCode != h.status {
			t.Fatalf("%q: abbench reads status %d, net/http %v (%v)", data, h.status, resp, err)
		}
	})
}
