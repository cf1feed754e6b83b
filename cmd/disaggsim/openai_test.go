package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
)

// apiSystem is the system serving the OpenAI API on a free port, its CTX
// ranks hashing with alg and writing their records.
func apiSystem(t *testing.T, alg digest.Algorithm, env ...string) (*system, *running, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	s, r := startSystem(t, append([]string{"DISAGGSIM_TERMINAL=1", "DISAGGSIM_PEER_READY=1"}, env...), func(rank int) []string {
		return []string{"--algorithm", string(alg), "--records", filepath.Join(t.TempDir(), fmt.Sprintf("act-%d.records", rank))}
	}, []string{"--http-port", port, "--requests", "256"})
	t.Cleanup(r.stop)
	url := "http://127.0.0.1:" + port
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.logOr("frontend.log"), "ready addr=") {
		if time.Now().After(deadline) {
			t.Fatalf("the frontend never got ready: %s", s.logOr("frontend.log"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s, r, url
}

// logOr is a log's content, "" while it does not exist.
func (s *system) logOr(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.dir, name))
	return string(b)
}

// load sends prompts to url with o (the model disaggsim's).
func load(t *testing.T, url string, prompts []digest.Prompt, o loadgen.Options) *loadgen.Result {
	t.Helper()
	o.URL, o.Model, o.Requests = url, "disaggsim", len(prompts)
	res, err := loadgen.Run(context.Background(), prompts, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func tokenWorkload(t *testing.T) []digest.Prompt {
	t.Helper()
	ps, err := digest.ReadPromptsFile("../../testdata/prompts-256.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// activated is the activation digest every CTX rank reports, once they
// stopped; it fails unless all four agree.
func activated(t *testing.T, s *system, r *running) string {
	t.Helper()
	r.stop()
	a := s.activations(t)
	allEqual(t, "activation digest", a, a[0])
	return a[0]
}

// TestAPIStreamsWhatTheClientSent: streamed completions of token prompts
// at concurrency 32: every request succeeds with the server's usage, the
// stream's tokens come one by one, and the CTX ranks served, as a
// multiset, exactly what the client says it sent.
func TestAPIStreamsWhatTheClientSent(t *testing.T) {
	s, r, url := apiSystem(t, digest.TokensSorted)
	res := load(t, url, tokenWorkload(t), loadgen.Options{Stream: true, Concurrency: 32, MaxTokens: 24, IgnoreEOS: true})
	sum := res.Summarize()
	if sum.Completed != 256 {
		t.Fatalf("summary %+v; first outcome %+v", sum, res.Outcomes[0])
	}
	for _, o := range res.Outcomes {
		if o.OutputTokens != 24 || o.TokensFrom != loadgen.FromUsage || len(o.ITLs) != 23 || o.TTFT <= 0 || o.E2E < o.TTFT {
			t.Fatalf("outcome %+v", o)
		}
	}
	if got := activated(t, s, r); got != fmt.Sprintf("%d:%s", res.SentMultiset.Count, res.SentMultiset.Hex) {
		t.Errorf("the ranks activated %s, the client sent %s", got, res.SentMultiset)
	}
	if !strings.Contains(s.log(t, "frontend.log"), "http_received=256 http_served=256 http_failed=0") {
		t.Errorf("frontend summary: %s", s.log(t, "frontend.log"))
	}
}

// TestAPIChatOfText: chat requests carry text, which the ranks hash as
// text; at concurrency 1 in the order sent.
func TestAPIChatOfText(t *testing.T) {
	s, r, url := apiSystem(t, digest.TextOrdered)
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	os.WriteFile(path, []byte("\"hello there\"\n{\"prompt\": \"how are you\"}\n\"\"\n"), 0o644)
	prompts, err := digest.ReadPromptsFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	res := load(t, url, prompts, loadgen.Options{Endpoint: loadgen.Chat, Stream: false})
	if s := res.Summarize(); s.Completed != 3 || res.Outcomes[0].PromptTokens != 2 {
		t.Fatalf("summary %+v, first %+v", s, res.Outcomes[0])
	}
	if got := activated(t, s, r); got != fmt.Sprintf("3:%s", res.Sent.Hex) {
		t.Errorf("the ranks activated %s, the client sent %s", got, res.Sent)
	}
}

// TestAPIFaults: fail-every=50 fails 5 of 256 requests with HTTP 500
// after serving them; alter-prompt=5 serves one prompt with other content
// (the ranks' multiset is not the client's); a server slower than the
// request deadline gives timeouts; an unknown model is a 404.
// shortSkipsSystem leaves a case that runs a system of seven processes and
// hundreds of requests to the full suite (a third to half a second of CPU
// each, most of this package's quick-loop time): under go test -short
// TestAPIStreamsWhatTheClientSent runs one whole system and the metrics
// and chat tests small ones.
func shortSkipsSystem(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a system of processes: go test without -short runs it")
	}
}

func TestAPIFaults(t *testing.T) {
	t.Run("fail-every=50", func(t *testing.T) {
		shortSkipsSystem(t)
		s, r, url := apiSystem(t, digest.TokensSorted, "DISAGGSIM_FAULTS=fail-every=50")
		res := load(t, url, tokenWorkload(t), loadgen.Options{Stream: true, Concurrency: 32})
		sum := res.Summarize()
		if sum.Failed != 5 || sum.Failures[loadgen.KindHTTP] != 5 {
			t.Fatalf("summary %+v", sum)
		}
		for _, o := range res.Outcomes {
			if !o.OK() && (o.Status != 500 || !strings.Contains(o.Error, "injected failure (fail-every=50)")) {
				t.Errorf("outcome %+v", o)
			}
		}
		if got := activated(t, s, r); got != fmt.Sprintf("256:%s", res.SentMultiset.Hex) {
			t.Errorf("the failed requests were served too: activated %s, sent %s", got, res.SentMultiset)
		}
	})
	t.Run("alter-prompt=5", func(t *testing.T) {
		shortSkipsSystem(t)
		s, r, url := apiSystem(t, digest.TokensSorted, "DISAGGSIM_FAULTS=alter-prompt=5")
		res := load(t, url, tokenWorkload(t), loadgen.Options{Stream: true, Concurrency: 32})
		if res.Summarize().Completed != 256 {
			t.Fatal("requests failed")
		}
		got := activated(t, s, r)
		if !strings.HasPrefix(got, "256:") || got == fmt.Sprintf("256:%s", res.SentMultiset.Hex) {
			t.Errorf("activated %s: want 256 prompts, not the %s the client sent", got, res.SentMultiset)
		}
	})
	t.Run("slower than the deadline", func(t *testing.T) {
		shortSkipsSystem(t)
		_, _, url := apiSystem(t, digest.TokensSorted, "DISAGGSIM_GEN_RATE=20")
		res := load(t, url, tokenWorkload(t)[:16], loadgen.Options{Stream: true, Concurrency: 16, RequestTimeout: 300 * time.Millisecond})
		if sum := res.Summarize(); sum.Failures[loadgen.KindTimeout] != 16 {
			t.Fatalf("summary %+v, first %+v", sum, res.Outcomes[0])
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		_, _, url := apiSystem(t, digest.TokensSorted)
		res, err := loadgen.Run(context.Background(), tokenWorkload(t)[:1], loadgen.Options{URL: url, Model: "gpt-9", Requests: 1})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Status != 404 || !strings.Contains(o.Error, `the model "gpt-9" does not exist`) {
			t.Errorf("outcome %+v", o)
		}
	})
}
