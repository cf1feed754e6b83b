package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/lockedbuf"
)

// TestLoopHoldsNoGoroutineAConnection: a closed loop of 64 requests in
// flight over plain HTTP/1.1 is sent by the loop alone, not by a worker
// goroutine a connection parked in the runtime's poller a request (what
// cost the client a third more CPU a request than wrk), and every
// request is still answered once. The client before ran 64 workers.
func TestLoopHoldsNoGoroutineAConnection(t *testing.T) {
	const n = 64
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		time.Sleep(100 * time.Millisecond)
		_, err := io.WriteString(c, okResponse())
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, n)
	type ran struct {
		res *Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: n, Concurrency: n})
		done <- ran{res, err}
	}()
	workers := 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && h.reads.Load() < n; {
		time.Sleep(5 * time.Millisecond)
	}
	buf := make([]byte, 8<<20)
	workers = bytes.Count(buf[:runtime.Stack(buf, true)], []byte("loadgen.(*phase).work("))
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if s := r.res.Summarize(); s.Completed != n || h.reads.Load() != n {
		t.Fatalf("summary %+v, the server read %d: want %d and %d", s, h.reads.Load(), n, n)
	}
	if workers != 0 {
		t.Errorf("%d worker goroutines with %d requests in flight, want none: the loop sends them", workers, n)
	}
}

// TestLoopTakesAnswersInParts: an answer that comes in small pieces, a
// pause between them (its head cut anywhere, its body too, a chunked
// body's size lines split, a body that ends with the connection, an
// interim head first, an error status), is taken by the loop as the
// workers take it: the same kinds, statuses, token counts and errors.
func TestLoopTakesAnswersInParts(t *testing.T) {
	chunked := fmt.Sprintf("%x\r\n%s\r\n", 10, okBody[:10]) + fmt.Sprintf("%x;ext=1\r\n%s\r\n0\r\nX-T: 1\r\n\r\n", len(okBody)-10, okBody[10:])
	for _, tc := range []struct {
		name, answer string
		closeAfter   bool
	}{
		{"length", okResponse(), false},
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked, false},
		{"until-close", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + okBody, true},
		{"continue-first", "HTTP/1.1 100 Continue\r\n\r\n" + okResponse(), false},
		{"error-status", "HTTP/1.1 503 Busy\r\nContent-Length: 30\r\n\r\n{\"error\": {\"message\": \"full\"}}", false},
		{"cut-short", "HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + okBody, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got [2]string
			for i, off := range []bool{false, true} {
				got[i] = runInParts(t, tc.answer, tc.closeAfter, off)
			}
			if got[0] != got[1] {
				t.Errorf("the loop took\n%s\nthe workers\n%s", got[0], got[1])
			}
		})
	}
}

// runInParts runs 3 requests against a server that writes answer in
// pieces of 5 bytes, 200 us apart, through the loop or (workersOnly) the
// workers, and says what each request's outcome was.
func runInParts(t *testing.T, answer string, closeAfter, workersOnly bool) string {
	t.Helper()
	defer func(was bool) { loopOff = was }(loopOff)
	loopOff = workersOnly
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		for i := 0; i < len(answer); i += 5 {
			if _, err := io.WriteString(c, answer[i:min(i+5, len(answer))]); err != nil {
				return false
			}
			time.Sleep(200 * time.Microsecond)
		}
		return !closeAfter
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, 3)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 3, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, o := range res.Outcomes {
		// The addresses and ports in a network error differ run to run.
		msg := o.Error
		if o.Kind == KindNetwork {
			msg = ""
		}
		fmt.Fprintf(&b, "%d %q %d %d %s %q\n", o.Status, o.Kind, o.PromptTokens, o.OutputTokens, o.TokensFrom, msg)
	}
	if h.reads.Load() != 3 {
		t.Errorf("the server read %d requests, want 3", h.reads.Load())
	}
	return b.String()
}

// TestLoopTellsProgressEveryRequest: the loop tells progress of its
// requests in batches, and by the last line every one is told: all
// done, the failed among them, none in flight. The answers come at once,
// so the run most often ends before the loop tells progress again by
// its clock: only the telling at its end counts them.
func TestLoopTellsProgressEveryRequest(t *testing.T) {
	const n = 40
	h := &hostile{answer: func(c net.Conn, k int64, _ int) bool {
		resp := okResponse()
		if k%4 == 0 {
			resp = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\n{}"
		}
		_, err := io.WriteString(c, resp)
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, n)
	var out lockedbuf.Buffer
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: n, Concurrency: 4, Progress: &out, ProgressEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize(); s.Completed != 30 || s.Failed != 10 {
		t.Fatalf("summary %+v, want 30 completed and 10 failed", s)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last, want := lines[len(lines)-1], fmt.Sprintf("abbench load: %d/%d done (10 failed), 0 in flight", n, n); !strings.HasPrefix(last, want) {
		t.Errorf("last progress line %q, want it to start %q", last, want)
	}
}

// TestLoopTimesItsRequests: the loop's send times are offsets from the
// phase's start that follow its requests, two at a time here, each
// answer 20 ms after the last; each latency holds the server's wait.
func TestLoopTimesItsRequests(t *testing.T) {
	const n, wait = 8, 20 * time.Millisecond
	h := &hostile{answer: func(c net.Conn, _ int64, _ int) bool {
		time.Sleep(wait)
		_, err := io.WriteString(c, okResponse())
		return err == nil
	}}
	url := h.start(t)
	_, prompts := tokenPrompts(t, n)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: n, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Outcomes {
		if !o.OK() || o.Send < time.Duration(o.Index/2)*wait || o.E2E < wait || o.Send+o.E2E > res.Duration {
			t.Errorf("request %d sent at %s, answered in %s, of a run of %s", o.Index, o.Send, o.E2E, res.Duration)
		}
	}
}
