package loadgen

import (
	"bytes"
	"context"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// benchPrompts are 256 prompts of 16 token IDs each.
func benchPrompts(t testing.TB) []Item {
	t.Helper()
	var lines bytes.Buffer
	for i := range 256 {
		lines.WriteString("[" + strconv.Itoa(i) + ", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]\n")
	}
	prompts, err := readPromptsForBench(lines.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return PromptItems(prompts)
}

// peakHeap is the most heap a run of n requests held, sampled every
// millisecond from its start until its files are written and its summary
// printed, as abbench load does.
func peakHeap(t *testing.T, url string, items []Item, n int) uint64 {
	t.Helper()
	runtime.GC()
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak.Store(max(peak.Load(), m.HeapAlloc))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	res, err := RunItems(context.Background(), items, Options{URL: url, Model: "bench", MaxTokens: 1, Requests: len(items), Rounds: n / len(items), Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if s := res.Summarize(); s.Failed != 0 || s.Completed != n {
		t.Fatalf("%d of %d completed: %v", s.Completed, n, s.Failures)
	}
	dir := t.TempDir()
	if err := res.Write(Files{Record: filepath.Join(dir, "r.json"), PerRequest: filepath.Join(dir, "r.jsonl"),
		Sent: filepath.Join(dir, "sent"), SentMultiset: filepath.Join(dir, "multiset")}); err != nil {
		t.Fatal(err)
	}
	if err := res.PrintSummary(io.Discard); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-stopped
	runtime.KeepAlive(res)
	return peak.Load()
}

// TestMemoryFlat: a run's memory does not grow with its requests: each
// outcome is counted and spooled as it ends, its latencies kept exactly
// up to a bound and then sketched, so the peak heap of 4n requests is
// that of n, give or take maxGrowth (garbage the collector has not yet
// taken, sampled between collections). The bounds are lowered so that
// the test's runs pass them. The old run held every outcome in one
// array (and the record's lists at the end): 300 B a request, 27 MB more
// for the 90,000 more requests here.
func TestMemoryFlat(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("sends 150,000 requests, and measures the heap (meaningless under the race detector)")
	}
	defer func(k, e int) { KeptOutcomes, exactLatencies = k, e }(KeptOutcomes, exactLatencies)
	KeptOutcomes, exactLatencies = 256, 1000
	const n, maxGrowth = 30_000, 4 << 20
	url := replyServer(t)
	items := benchPrompts(t)
	peakHeap(t, url, items, 4*n/256*256) // connections, buffers and spools' first blocks made, so both figures hold them
	small := peakHeap(t, url, items, n/256*256)
	large := peakHeap(t, url, items, 4*n/256*256)
	t.Logf("peak heap %d B for %d requests, %d B for %d", small, n/256*256, large, 4*n/256*256)
	if grew := int64(large) - int64(small); grew > maxGrowth {
		t.Fatalf("a run's peak heap grew by %d B for %d more requests (%.0f B a request; at most %d B in all)", grew, 3*n/256*256, float64(grew)/float64(3*n/256*256), maxGrowth)
	}
}

// fixedServer answers every request of exactly size bytes with resp,
// allocating nothing per request, so that what a test counts is the
// client's. size is the request's, set once the client is made for the
// server's URL (the URL is in the request's Host header).
func fixedServer(t *testing.T, resp []byte) (url string, size *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	size = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, size.Load())
				for {
					if _, err := io.ReadFull(c, buf); err != nil {
						return
					}
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), size
}

// TestRequestAllocs: a request on a kept-alive connection, sent and its
// answer read and decoded, allocates nothing when the answer is whole
// (the server allocates nothing a request), and once when it is streamed
// (one content event; a stream of more keeps its inter-token latencies,
// its one list): net/http's reader of a chunked body, which cannot be
// reset. The client before allocated 8 times this whole answer, with
// escapes in its text (6 without: its text, its usage and the two counts
// in it, its Content-Type), and 6 this stream of two events (a chunk an
// event, its text and usage);
// the one before that, 11 (two closures, a LimitReader, the words of the
// text and the choices besides).
func TestRequestAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates of its own")
	}
	const body = `{"id":"cmpl-0","object":"text_completion","model":"bench","choices":[{"index":0,"text":" x\\n\\u00e9 y","finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":3,"total_tokens":19}}`
	whole := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	events := "data: {\"choices\":[{\"index\":0,\"text\":\" x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"
	streamed := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(events)), 16) + "\r\n" + events + "\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name, resp string
		stream     bool
		tokens     int
		allocs     float64
	}{{"whole", whole, false, 3, 0}, {"streamed", streamed, true, 1, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			url, size := fixedServer(t, []byte(tc.resp))
			o := Options{URL: url, Model: "bench", MaxTokens: 3, Stream: tc.stream, Requests: 1, Concurrency: 1}.withDefaults()
			c, err := newClient(o, benchPrompts(t)[:1])
			if err != nil {
				t.Fatal(err)
			}
			size.Store(int64(len(c.requests[0])))
			c.start = time.Now()
			w := &worker{c: c}
			defer w.close()
			ctx := context.Background()
			var out Outcome
			w.do(ctx, &out, c.prompts[0], c.requests[0])
			conn := w.conn
			allocs := testing.AllocsPerRun(2000, func() {
				out = Outcome{Sent: true}
				w.do(ctx, &out, c.prompts[0], c.requests[0])
			})
			if !out.OK() || out.OutputTokens != tc.tokens {
				t.Fatalf("the request failed: %+v", out)
			}
			if w.conn != conn {
				t.Fatalf("the connection was not kept: %+v", out) // a dial's allocations would be counted
			}
			if allocs > tc.allocs {
				t.Fatalf("%.1f allocations a request (at most %.0f)", allocs, tc.allocs)
			}
		})
	}
}
