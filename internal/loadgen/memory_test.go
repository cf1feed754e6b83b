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
// client's.
func fixedServer(t *testing.T, size int, resp []byte) string {
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
			go func() {
				defer c.Close()
				buf := make([]byte, size)
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
	return "http://" + ln.Addr().String()
}

// TestRequestAllocs: a request on a kept-alive connection, sent and its
// whole (non-streamed) answer read and decoded, allocates at most
// maxAllocs times (the server allocates nothing a request): what is left
// is the answer's own (its text, its usage and the two counts in it,
// its Content-Type, kept for an error). The old client allocated 11
// times: two closures, a LimitReader, the words of the text and the
// choices besides.
func TestRequestAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates of its own")
	}
	const maxAllocs = 6
	items := benchPrompts(t)
	o := Options{URL: "http://127.0.0.1:1", Model: "bench", MaxTokens: 1, Requests: 1, Concurrency: 1}.withDefaults()
	c, err := newClient(o, items[:1])
	if err != nil {
		t.Fatal(err)
	}
	const body = `{"id":"cmpl-0","object":"text_completion","model":"bench","choices":[{"index":0,"text":" x","finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":1,"total_tokens":17}}`
	resp := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	o.URL = fixedServer(t, len(c.requests[0]), []byte(resp))
	if c, err = newClient(o, items[:1]); err != nil {
		t.Fatal(err)
	}
	c.start = time.Now()
	w := &worker{c: c}
	defer w.close()
	ctx := context.Background()
	var out Outcome
	allocs := testing.AllocsPerRun(2000, func() {
		out = Outcome{Sent: true}
		w.do(ctx, &out, c.prompts[0], c.requests[0])
	})
	if !out.OK() || out.OutputTokens != 1 {
		t.Fatalf("the request failed: %+v", out)
	}
	if allocs > maxAllocs {
		t.Fatalf("%.1f allocations a request (at most %d)", allocs, maxAllocs)
	}
}
