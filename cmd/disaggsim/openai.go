package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// httpIDBase keeps the IDs of requests that came over HTTP apart from the
// benchmark client's, which count from 0.
const httpIDBase = 1 << 30

// apiOptions configure the frontend's OpenAI API.
type apiOptions struct {
	port string // listen on 127.0.0.1:port; "" serves no API
	// listen is the whole address to listen on (serve: 0.0.0.0:8000 in a
	// pod); it wins over port.
	listen string
	model  string // the one model served
	total  int    // requests the workload sends (for faults that act half-way); 0 unknown
}

// api is the frontend's OpenAI-compatible server: /v1/completions and
// /v1/chat/completions, streaming or not, with usage. Each request goes to
// every CTX rank as the benchmark client's do, and is answered when GEN's
// completion comes back; a stream starts when GEN starts generating and
// paces its tokens at the generation rate.
type api struct {
	n    *node
	ctx  []*peer
	cfg  config
	opts apiOptions
	srv  *http.Server
	addr string

	received       atomic.Int64
	served, failed atomic.Int64
	mu             sync.Mutex
	waiting        map[int]*pending
	cache          prefixCache
}

// pending is a request waiting for GEN: its first token, then its end.
type pending struct {
	first, done chan msg // each buffered 1
}

func startAPI(n *node, ctx []*peer, cfg config, opts apiOptions) (*api, error) {
	addr := net.JoinHostPort(listenHost(), opts.port)
	if opts.listen != "" {
		addr = opts.listen
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the OpenAI API: %w", err)
	}
	a := &api{n: n, ctx: ctx, cfg: cfg, opts: opts, addr: ln.Addr().String(), waiting: map[int]*pending{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { a.handle(w, r, false) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { a.handle(w, r, true) })
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": opts.model, "object": "model", "owned_by": "disaggsim"}}})
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /metrics", a.metrics)
	a.cache.hits.Store(int64(cfg.faults.warmCache))
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() { _ = a.srv.Serve(ln) }() // ends with ErrServerClosed at stop
	return a, nil
}

// stop ends the server: requests in flight get a moment, then are cut.
func (a *api) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if a.srv.Shutdown(ctx) != nil {
		_ = a.srv.Close() // past the grace: nothing left to wait for
	}
}

// deliver hands GEN's message about an HTTP request to its handler;
// false when no HTTP request waits for it (the benchmark client's, or one
// whose client gave up).
func (a *api) deliver(m msg) bool {
	a.mu.Lock()
	p := a.waiting[m.ID]
	a.mu.Unlock()
	if p == nil {
		return m.ID >= httpIDBase
	}
	ch := p.done
	if m.Type == "first" {
		ch = p.first
	}
	select {
	case ch <- m:
	default: // a duplicate: the handler took the first
	}
	return true
}

// apiRequest is what the handlers read of a completions or chat request.
type apiRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	Messages  []apiMessage    `json:"messages"`
	MaxTokens *int            `json:"max_tokens"`
	// MaxCompletionTokens is chat's newer name for max_tokens.
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	Stream              bool `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	IgnoreEOS bool `json:"ignore_eos"`
}

type apiMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// served is a request as the system serves it.
type served struct {
	id, index    int
	chat, stream bool
	usage        bool // stream: end with the usage chunk
	prompt       []uint32
	text         string
	promptLen    int
	output       int
	capped       bool // the output stopped at max_tokens
	fail         bool // fail-every: answer 500 once served
}

func (a *api) handle(w http.ResponseWriter, r *http.Request, chat bool) {
	var req apiRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<20))
	if err := dec.Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "the request body is not JSON: "+err.Error())
		return
	}
	if req.Model != a.opts.model {
		apiError(w, http.StatusNotFound, fmt.Sprintf("the model %q does not exist (this server serves %q)", req.Model, a.opts.model))
		return
	}
	s, err := a.parse(req, chat)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	p := &pending{first: make(chan msg, 1), done: make(chan msg, 1)}
	a.mu.Lock()
	a.waiting[s.id] = p
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiting, s.id)
		a.mu.Unlock()
	}()
	if a.n == nil { // serve: no ranks behind this server
		go a.simulate(s, p)
	}
	for _, c := range a.ctx {
		a.n.send(c, msg{Type: "enqueue", ID: s.id, Prompt: s.prompt, Text: s.text, Output: s.output, Total: a.opts.total})
	}
	if s.stream && !s.fail {
		a.stream(w, r, s, p)
		return
	}
	select {
	case m := <-p.done:
		a.answer(w, s, m)
	case <-r.Context().Done(): // the client gave up; GEN's answer finds no one
	}
}

// parse reads the prompt and the output length of a request, numbers it
// and applies the faults that act on requests.
func (a *api) parse(req apiRequest, chat bool) (served, error) {
	s := served{chat: chat, stream: req.Stream, usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}
	switch {
	case chat && len(req.Messages) == 0:
		return s, errors.New("messages is empty")
	case chat:
		parts := make([]string, len(req.Messages))
		for i, m := range req.Messages {
			parts[i] = m.Content
		}
		s.text = strings.Join(parts, "\n")
	case len(req.Prompt) > 0 && req.Prompt[0] == '[':
		if err := json.Unmarshal(req.Prompt, &s.prompt); err != nil {
			return s, errors.New("prompt: give one prompt, a list of token IDs or a string (no batches)")
		}
		if s.prompt == nil {
			s.prompt = []uint32{}
		}
	default:
		if err := json.Unmarshal(req.Prompt, &s.text); err != nil {
			return s, errors.New("prompt: give one prompt, a list of token IDs or a string")
		}
	}
	a.cache.served(s.prompt, s.text)
	s.index = int(a.received.Add(1) - 1)
	s.id = httpIDBase + s.index
	if s.index == a.cfg.faults.alterPrompt { // served with other content than it was sent
		if s.prompt != nil {
			s.prompt = append(s.prompt, 0)
		} else {
			s.text += " (altered)"
		}
	}
	s.fail = a.cfg.faults.failEvery > 0 && (s.index+1)%a.cfg.faults.failEvery == 0
	s.promptLen = len(s.prompt) + len(strings.Fields(s.text))
	s.output, s.capped = outputLength(s, req)
	if a.cfg.faults.shortAnswers { // a server that stops early: less work per request
		s.output, s.capped = max(1, s.output/2), false
	}
	return s, nil
}

// outputLength is how many tokens a request generates: max_tokens under
// ignore_eos, else where its "EOS" falls (16 to 63 tokens, by its prompt's
// content, so the same prompt gives the same length in every arm and
// order), at most max_tokens; true when max_tokens cut it.
func outputLength(s served, req apiRequest) (int, bool) {
	h := fnv.New32a()
	for _, t := range s.prompt {
		h.Write([]byte{byte(t >> 24), byte(t >> 16), byte(t >> 8), byte(t)})
	}
	h.Write([]byte(s.text))
	n := 16 + int(h.Sum32()%48)
	limit := req.MaxTokens
	if limit == nil {
		limit = req.MaxCompletionTokens
	}
	switch {
	case limit == nil || *limit <= 0:
		return n, false
	case req.IgnoreEOS:
		return *limit, true
	}
	return min(n, *limit), *limit <= n
}
