package loadgen

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readSyscalls is this process's count of read system calls so far.
func readSyscalls(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io:", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "syscr: "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("/proc/self/io has no syscr")
	return 0
}

// TestRequestReadsOnceItsAnswer: on a kept-alive connection to a server
// that answers 2 ms after each request, the client reads each answer with
// one read system call, never one that finds nothing first. The server,
// in this process too, reads twice a request (the read that finds nothing
// before it waits, then the request): at most 3.5 reads a request in all.
// The old client read first and waited after, 4 in all.
func TestRequestReadsOnceItsAnswer(t *testing.T) {
	const requests = 200
	items := benchPrompts(t)
	// A request deadline of its own: the server serves one connection, so
	// a request on another would wait for an answer (10 minutes by default).
	const body = `{"choices":[{"index":0,"text":" x"}],"usage":{"prompt_tokens":16,"completion_tokens":1}}`
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o := Options{URL: "http://" + ln.Addr().String(), Model: "bench", MaxTokens: 1, Requests: 1, Concurrency: 1, RequestTimeout: 20 * time.Second}.withDefaults()
	c, err := newClient(o, items[:1])
	if err != nil {
		t.Fatal(err)
	}
	// The server reads a request as the bytes this client writes, its Host
	// header (the listener's port) included: sized from a client of
	// another port, it fell out of step by the port's digits a request,
	// answered one request twice some 60 requests on, and the second
	// answer failed a request as stray bytes when a slow write let both in.
	size := len(c.requests[0])
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, size)
		for {
			if _, err := io.ReadFull(conn, buf); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
			if _, err := conn.Write(resp); err != nil {
				return
			}
		}
	}()
	c.start = time.Now()
	w := &worker{c: c}
	defer w.close()
	var out Outcome
	w.do(context.Background(), &out, c.prompts[0], c.requests[0]) // the connection made
	if out.Kind != "" {
		t.Fatalf("the first request failed: %+v", out)
	}
	before := readSyscalls(t)
	for range requests {
		out = Outcome{Sent: true}
		w.do(context.Background(), &out, c.prompts[0], c.requests[0])
		if !out.OK() {
			t.Fatalf("a request failed: %+v", out)
		}
	}
	if per := float64(readSyscalls(t)-before) / requests; per > 3.5 {
		t.Fatalf("%.2f read system calls a request, client and server (at most 3.5)", per)
	}
}
