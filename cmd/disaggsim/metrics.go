package main

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// maxCached bounds the prompts the prefix cache remembers: a prompt
// beyond it is served uncached.
const maxCached = 1 << 20

// prefixCache is the frontend's simulated prefix cache: a prompt it has
// served before is a hit. A server that kept its cache from an earlier
// run (the warm-cache=N fault: N hits before the first request) serves a
// repeated workload faster, and says so on /metrics.
type prefixCache struct {
	mu   sync.Mutex
	seen map[[sha256.Size]byte]bool
	hits atomic.Int64
}

// served notes a prompt, its token IDs or its text, and counts a hit
// when it was served before.
func (c *prefixCache) served(prompt []uint32, text string) {
	h := sha256.New()
	for _, t := range prompt {
		h.Write([]byte{byte(t >> 24), byte(t >> 16), byte(t >> 8), byte(t)})
	}
	h.Write([]byte(text))
	var k [sha256.Size]byte
	copy(k[:], h.Sum(nil))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[[sha256.Size]byte]bool{}
	}
	switch {
	case c.seen[k]:
		c.hits.Add(1)
	case len(c.seen) < maxCached:
		c.seen[k] = true
	}
}

// metrics answers /metrics in Prometheus' text format: the requests the
// API answered, the prefix cache's hits and the requests waiting, as a
// serving engine exports them.
func (a *api) metrics(w http.ResponseWriter, _ *http.Request) {
	a.mu.Lock()
	waiting := len(a.waiting)
	a.mu.Unlock()
	var b strings.Builder
	b.WriteString("# HELP disaggsim_requests_total Requests the OpenAI API answered, by outcome.\n# TYPE disaggsim_requests_total counter\n")
	fmt.Fprintf(&b, "disaggsim_requests_total{outcome=\"served\"} %d\ndisaggsim_requests_total{outcome=\"failed\"} %d\n", a.served.Load(), a.failed.Load())
	b.WriteString("# HELP disaggsim_prefix_cache_hits_total Requests whose prompt the prefix cache held (served before).\n# TYPE disaggsim_prefix_cache_hits_total counter\n")
	fmt.Fprintf(&b, "disaggsim_prefix_cache_hits_total %d\n", a.cache.hits.Load())
	b.WriteString("# HELP disaggsim_requests_waiting Requests waiting for their answer.\n# TYPE disaggsim_requests_waiting gauge\n")
	fmt.Fprintf(&b, "disaggsim_requests_waiting %d\n", waiting)
	if a.n == nil { // serve: the one process whose configuration this is
		b.WriteString(a.configInfo())
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = w.Write([]byte(b.String())) // a client gone: nothing to tell it
}
