package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// replyServer answers every request at once with one fixed completions
// response, reading requests as cheaply as it can, so a benchmark of the
// client measures the client.
func replyServer(b testing.TB) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	const body = `{"id":"cmpl-0","object":"text_completion","model":"bench","choices":[{"index":0,"text":" x","finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":1,"total_tokens":17}}`
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// BenchmarkRequest is the client's cost per request, closed loop at
// concurrency 16, against a server that answers at once (its cost is in
// the figure too: compare runs, not absolutes).
func BenchmarkRequest(b *testing.B) {
	url := replyServer(b)
	var lines bytes.Buffer
	for i := range 256 {
		lines.WriteString("[" + strconv.Itoa(i) + ", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n")
	}
	prompts, err := readPromptsForBench(lines.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	rounds := max(1, b.N/256)
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "bench", MaxTokens: 1, Requests: 256, Rounds: rounds, Concurrency: 16})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if s := res.Summarize(); s.Failed != 0 {
		b.Fatalf("%d failed: %v", s.Failed, s.Failures)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(256*rounds), "ns/request")
}

func readPromptsForBench(data []byte) ([]digest.Prompt, error) {
	return digest.ReadPrompts(bytes.NewReader(data), "bench", "")
}

// BenchmarkWrite is the cost of a run's files per request: the record in
// vLLM's shape and the per-request lines, of streamed requests of 16
// tokens.
func BenchmarkWrite(b *testing.B) {
	res := &Result{Options: Options{Model: "m"}.withDefaults(), Duration: time.Minute, Outcomes: make([]Outcome, 100_000)}
	itls := make([]time.Duration, 15)
	for i := range itls {
		itls[i] = time.Duration(i+1) * 1234567
	}
	for i := range res.Outcomes {
		res.Outcomes[i] = Outcome{Index: i, Prompt: i % 256, Line: i%256 + 1, Sent: true, Send: time.Duration(i) * time.Microsecond,
			TTFT: 12345678, E2E: 98765432, ITLs: itls, PromptTokens: 128, OutputTokens: 16, TokensFrom: FromUsage, Status: 200}
	}
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := res.Write(Files{Record: filepath.Join(dir, "r.json"), PerRequest: filepath.Join(dir, "r.jsonl")}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(res.Outcomes)), "ns/request")
}
