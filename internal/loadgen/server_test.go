package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// fakeServer is an OpenAI-compatible server for the tests: it hashes the
// prompt content of every request it receives (in arrival order), counts
// requests in flight, and answers as its knobs say.
type fakeServer struct {
	tokens   int           // output tokens of each response
	delay    time.Duration // before answering (and between streamed tokens)
	failEach int           // answer HTTP 500 to every failEach-th request (0: never)
	noUsage  bool          // leave usage out
	noDone   bool          // end streams without data: [DONE]

	mu       sync.Mutex
	received []digest.Record
	unit     digest.Unit
	n        atomic.Int64
	inflight atomic.Int64
	peak     atomic.Int64
	paths    map[string]int
}

func newFake(t *testing.T, f *fakeServer) string {
	t.Helper()
	f.paths = map[string]int{}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		p := f.peak.Load()
		if now <= p || f.peak.CompareAndSwap(p, now) {
			break
		}
	}
	n := f.n.Add(1)
	var req struct {
		Prompt   json.RawMessage `json:"prompt"`
		Messages []message       `json:"messages"`
		Stream   bool            `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error": {"message": "bad json"}}`, http.StatusBadRequest)
		return
	}
	f.receive(r.URL.Path, req.Prompt, req.Messages)
	if f.failEach > 0 && n%int64(f.failEach) == 0 {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error": {"message": "injected failure %d"}}`, n)
		return
	}
	if !sleep(r, f.delay) {
		return
	}
	usage := fmt.Sprintf(`, "usage": {"prompt_tokens": 7, "completion_tokens": %d}`, f.tokens)
	if f.noUsage {
		usage = ""
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		words := strings.TrimSpace(strings.Repeat("tok ", f.tokens))
		fmt.Fprintf(w, `{"choices": [{"text": %q, "message": {"content": %q}}]%s}`, words, words, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i := range f.tokens {
		if i > 0 && !sleep(r, f.delay) {
			return
		}
		fmt.Fprintf(w, "data: {\"choices\": [{\"text\": \"t%d\", \"delta\": {\"content\": \"t%d\"}}]}\n\n", i, i)
		fl.Flush()
	}
	if usage != "" {
		fmt.Fprintf(w, "data: {\"choices\": []%s}\n\n", usage)
	}
	if !f.noDone {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// receive hashes the prompt content a request carried.
func (f *fakeServer) receive(path string, prompt json.RawMessage, msgs []message) {
	var body []byte
	unit := digest.UnitText
	switch {
	case len(msgs) > 0:
		body = []byte(msgs[0].Content)
	case len(prompt) > 0 && prompt[0] == '[':
		var toks []uint32
		_ = json.Unmarshal(prompt, &toks)
		body, unit = digest.AppendTokens(nil, toks), digest.UnitTokens
	default:
		var s string
		_ = json.Unmarshal(prompt, &s)
		body = []byte(s)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.received = append(f.received, digest.RecordOf(body))
	f.unit = unit
	f.paths[path]++
}

// multiset is the digest of what the server received, as a multiset (for
// tokens) or in arrival order (for text).
func (f *fakeServer) digest(t *testing.T, alg digest.Algorithm) digest.Digest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := digest.NewBuilder(alg, false)
	for _, r := range f.received {
		b.AddRecord(r)
	}
	d, err := b.Sum()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tokenPrompts is a prompts file of n distinct token prompts, and its prompts.
func tokenPrompts(t *testing.T, n int) (string, []digest.Prompt) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[%d, %d, %d]\n", i, i*7, 100000+i)
	}
	return promptsFile(t, b.String())
}

func promptsFile(t *testing.T, content string) (string, []digest.Prompt) {
	t.Helper()
	path := t.TempDir() + "/prompts.jsonl"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	ps, err := digest.ReadPromptsFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	return path, ps
}

// sleep waits d, or until the client gives up on r (false).
func sleep(r *http.Request, d time.Duration) bool {
	select {
	case <-time.After(d):
		return true
	case <-r.Context().Done():
		return false
	}
}
