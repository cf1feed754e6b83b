package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/records"
)

// TestStreamingSendsWhatItHashes: a streamed run sends every prompt, and
// what the server received is what the client says it sent: in order of
// sending the file's own digest, as a multiset the server's. The record
// reads as a valid vLLM result; requests in flight stay at the concurrency.
func TestStreamingSendsWhatItHashes(t *testing.T) {
	f := &fakeServer{tokens: 5, delay: time.Millisecond}
	url := newFake(t, f)
	path, prompts := tokenPrompts(t, 64)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Stream: true, Requests: 64, Concurrency: 8, MaxTokens: 5, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	file, err := digest.ReadFile(path, digest.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *res.Sent != file.Digest {
		t.Errorf("sent %s, the prompts file digests to %s", res.Sent, file.Digest)
	}
	if got := f.digest(t, digest.TokensSorted); *res.SentMultiset != got {
		t.Errorf("sent multiset %s, the server received %s", res.SentMultiset, got)
	}
	if peak := f.peak.Load(); peak > 8 || peak < 2 {
		t.Errorf("peak requests in flight %d, want at most the concurrency 8 (and more than 1)", peak)
	}
	if f.paths["/v1/completions"] != 64 {
		t.Errorf("paths %v", f.paths)
	}
	for _, o := range res.Outcomes {
		if !o.OK() || o.OutputTokens != 5 || o.TokensFrom != FromUsage || len(o.ITLs) != 4 || o.TTFT <= 0 || o.E2E < o.TTFT || o.Status != 200 {
			t.Fatalf("outcome %+v", o)
		}
	}
	rec := parseRecord(t, res, 64)
	if !rec.Valid || rec.Completed != 64 || rec.Failed != 0 {
		t.Errorf("record %+v", rec)
	}
}

// parseRecord writes res's record and reads it back as format vllm.
func parseRecord(t *testing.T, res *Result, requested int) *records.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "result.json")
	if err := res.Write(Files{Record: path}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return records.Parse(data, "result.json", records.Spec{Format: "vllm", Requested: requested, Metric: "output_throughput"})
}

// TestChatCountsWithoutUsage: chat requests carry text prompts as user
// messages; without usage, the client counts output words and prompt words.
func TestChatCountsWithoutUsage(t *testing.T) {
	f := &fakeServer{tokens: 3, noUsage: true}
	url := newFake(t, f)
	_, prompts := promptsFile(t, "\"one two three four\"\n{\"prompt\": \"five six\"}\n")
	res, err := Run(context.Background(), prompts, Options{URL: url + "/v1/", Model: "m", Endpoint: Chat, Requests: 2, Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if f.paths["/v1/chat/completions"] != 4 {
		t.Errorf("paths %v", f.paths)
	}
	if got := f.digest(t, digest.TextOrdered); *res.Sent != got {
		t.Errorf("sent %s, the server received %s (concurrency 1: in order)", res.Sent, got)
	}
	want := []int{4, 2, 4, 2}
	for i, o := range res.Outcomes {
		if !o.OK() || o.TokensFrom != FromCounted || o.OutputTokens != 3 || o.PromptTokens != want[i] || o.TTFT != o.E2E {
			t.Errorf("outcome %d: %+v", i, o)
		}
	}
	if res.SentMultiset != nil || res.Write(Files{SentMultiset: filepath.Join(t.TempDir(), "m")}) == nil {
		t.Error("text prompts have no multiset digest, and asking for its records must say so")
	}
}

// TestFailuresAreCountedAndNamed: one request in fifty answered 500 is a
// failed request named by its status and the server's message, and the
// record says how many.
func TestFailuresAreCountedAndNamed(t *testing.T) {
	f := &fakeServer{tokens: 2, failEach: 50}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 200)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Stream: true, Requests: 200, Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if s.Failed != 4 || s.Failures[KindHTTP] != 4 || s.Completed != 196 {
		t.Fatalf("summary %+v", s)
	}
	for _, o := range res.Outcomes {
		if !o.OK() && (o.Status != 500 || !strings.HasPrefix(o.Error, "HTTP 500: injected failure")) {
			t.Errorf("failed outcome %+v", o)
		}
	}
	rec := parseRecord(t, res, 200)
	if rec.Valid || rec.Failed != 4 || rec.Completed != 196 {
		t.Errorf("record valid %v completed %d failed %d, want 196 and 4 failed", rec.Valid, rec.Completed, rec.Failed)
	}
}

// TestTimeoutsAreFailures: a server slower than the request deadline gives
// a timeout for every request, none dropped, and the run ends in about
// one deadline per wave of the concurrency.
func TestTimeoutsAreFailures(t *testing.T) {
	f := &fakeServer{tokens: 2, delay: 2 * time.Second}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 8)
	begin := time.Now()
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 8, Concurrency: 8, RequestTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > time.Second {
		t.Errorf("the run took %s: the request deadline did not end the requests", took)
	}
	if len(res.Outcomes) != 8 {
		t.Fatalf("%d outcomes, want 8", len(res.Outcomes))
	}
	for _, o := range res.Outcomes {
		if o.Kind != KindTimeout || !strings.Contains(o.Error, "request deadline 100ms passed") {
			t.Errorf("outcome %+v, want a timeout", o)
		}
	}
	if rec := parseRecord(t, res, 8); rec.Failed != 8 || rec.Valid {
		t.Errorf("record failed %d valid %v", rec.Failed, rec.Valid)
	}
}

// TestCancelEndsEveryRequest: cancelling the run ends the requests in
// flight at once (cancelled) and sends no more (not-sent); every request
// is still accounted for.
func TestCancelEndsEveryRequest(t *testing.T) {
	f := &fakeServer{tokens: 2, delay: 5 * time.Second}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 20)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	begin := time.Now()
	res, err := Run(ctx, prompts, Options{URL: url, Model: "m", Requests: 20, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("cancelled run took %s", took)
	}
	s := res.Summarize()
	if s.Failures[KindCancelled] != 4 || s.Failures[KindNotSent] != 16 || res.Sent.Count != 4 || !strings.Contains(res.Ended, "stopped") {
		t.Errorf("failures %v, sent %d, ended %q; want 4 cancelled, 16 not sent", s.Failures, res.Sent.Count, res.Ended)
	}
}

// TestRunTimeoutEndsTheRun: the run's own deadline ends it as
// cancellation does, saying which deadline it was.
func TestRunTimeoutEndsTheRun(t *testing.T) {
	f := &fakeServer{tokens: 1, delay: 50 * time.Millisecond}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 100)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 100, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summarize()
	if s.Completed < 2 || s.Failures[KindNotSent] < 50 || !strings.Contains(res.Ended, "timeout 300ms") || s.Completed+s.Failed != 100 {
		t.Errorf("summary %+v ended %q", s, res.Ended)
	}
}

func TestBrokenAndRefused(t *testing.T) {
	f := &fakeServer{tokens: 3, noDone: true}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 2)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Stream: true, Requests: 2})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Kind != KindStream || !strings.Contains(o.Error, "before data: [DONE]") {
		t.Errorf("a stream without [DONE]: %+v", o)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res, err = Run(context.Background(), prompts, Options{URL: "http://" + addr, Model: "m", Requests: 2})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[1]; o.Kind != KindConnect || o.Status != 0 {
		t.Errorf("a closed port: %+v", o)
	}
	// The record names the first failure, which a censored run's reason
	// quotes: its count alone does not say the server was never reached.
	rec, err := res.Record(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if first, _ := rec["first_failure"].(string); !strings.HasPrefix(first, "request 0: "+KindConnect+": ") || !strings.Contains(first, addr) {
		t.Errorf("first_failure %q: want request 0, its kind and the address", first)
	}
}

// TestScheduleIsTheSeeds: the Poisson schedule is a function of its seed,
// its mean gap is 1/rate, and burstiness sets its spread (CV² = 1/b).
func TestScheduleIsTheSeeds(t *testing.T) {
	a, b := Arrivals(20000, 100, 1, 7), Arrivals(20000, 100, 1, 7)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same seed gave another schedule")
		}
	}
	if c := Arrivals(20000, 100, 1, 8); c[100] == a[100] {
		t.Error("another seed gave the same schedule")
	}
	for _, burst := range []float64{0.5, 1, 4} {
		arr := Arrivals(20000, 100, burst, 3)
		var gaps []float64
		for i := 1; i < len(arr); i++ {
			gaps = append(gaps, (arr[i] - arr[i-1]).Seconds())
		}
		d := distOf(gaps)
		if math.Abs(d.Mean-0.01) > 0.0005 {
			t.Errorf("burstiness %g: mean gap %g, want 0.01", burst, d.Mean)
		}
		if cv2 := d.Std * d.Std / (d.Mean * d.Mean); math.Abs(cv2-1/burst) > 0.1/burst {
			t.Errorf("burstiness %g: CV² %g, want %g", burst, cv2, 1/burst)
		}
	}
	if closed := Arrivals(5, 0, 0, 1); closed[4] != 0 {
		t.Error("a closed loop has no arrival times")
	}
}

// TestPoissonRunKeepsItsSchedule: no request is sent before its arrival time.
func TestPoissonRunKeepsItsSchedule(t *testing.T) {
	f := &fakeServer{tokens: 1}
	url := newFake(t, f)
	_, prompts := tokenPrompts(t, 30)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 30, Concurrency: 30, Rate: 200, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := Arrivals(30, 200, 1, 5)
	for i, o := range res.Outcomes {
		if !o.OK() || o.Send < want[i] {
			t.Errorf("request %d sent at %s, scheduled at %s (%+v)", i, o.Send, want[i], o)
		}
	}
}

func TestOptionsRefused(t *testing.T) {
	_, tokens := tokenPrompts(t, 3)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{URL: "http://h:1", Model: "m", Endpoint: Chat, Requests: 3}, "endpoint chat sends text messages"},
		{Options{URL: "http://h:1/v1/completions", Model: "m", Requests: 3}, "names an endpoint: give the base URL (http://h:1/v1)"},
		{Options{URL: "h:1", Model: "m", Requests: 3}, "give the server's base URL"},
		{Options{URL: "http://h:1", Requests: 3}, "no model"},
		{Options{URL: "http://h:1", Model: "m", Requests: 4}, "requests 4: between 1 and the 3 prompts"},
		{Options{URL: "http://h:1", Model: "m", Requests: 3, Burstiness: 2}, "burstiness 2: shapes the gaps of a Poisson schedule, and there is no rate"},
		{Options{URL: "http://h:1", Model: "m", Requests: 3, Endpoint: "embeddings"}, `endpoint "embeddings"`},
	} {
		_, err := Run(context.Background(), tokens, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// Each bad option is an OptionError of its own, named as its flag, so
// abbench load can say "--max-tokens -1" where a scenario says
// max_tokens: one problem an error, never two options in one sentence.
func TestOptionErrorsNameTheirOption(t *testing.T) {
	_, tokens := tokenPrompts(t, 3)
	o := Options{URL: "http://h:1", Model: "m", Requests: 3, Concurrency: 1, MaxTokens: -1, Warmup: -2, RampFrom: 3,
		ConnectTimeout: time.Second, RequestTimeout: -time.Second, Timeout: time.Second, ProgressEvery: time.Second}
	_, err := Run(context.Background(), tokens, o)
	var got []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var oe *OptionError
		if !errors.As(e, &oe) {
			t.Errorf("%v: not an OptionError", e)
			continue
		}
		got = append(got, oe.Option+"="+oe.Value)
	}
	if want := "max-tokens=-1 request-timeout=-1s warmup=-2 ramp-from=3"; strings.Join(got, " ") != want {
		t.Errorf("options %q, want %q", strings.Join(got, " "), want)
	}
}

// TestFilesAreWhatDigestReads: the sent records are what abbench digest
// --explain reads, and equal the prompts file's own records.
func TestFilesAreWhatDigestReads(t *testing.T) {
	f := &fakeServer{tokens: 1}
	url := newFake(t, f)
	path, prompts := tokenPrompts(t, 10)
	res, err := Run(context.Background(), prompts, Options{URL: url, Model: "m", Requests: 10, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fs := Files{Record: dir + "/r.json", PerRequest: dir + "/r.jsonl", Sent: dir + "/sent.records", SentMultiset: dir + "/sent-multiset.records"}
	if err := res.Write(fs); err != nil {
		t.Fatal(err)
	}
	file, _ := digest.ReadFile(path, digest.ReadOptions{KeepRecords: true})
	declared := dir + "/declared.records"
	if err := digest.WriteRecordsFile(declared, file.Digest, file.Records); err != nil {
		t.Fatal(err)
	}
	e, err := digest.ExplainFiles(fs.Sent, declared)
	if err != nil || e.Relation != digest.Equal {
		t.Errorf("explain sent vs declared: %v %+v", err, e)
	}
	if d, _, err := digest.ReadRecordsFile(fs.SentMultiset); err != nil || d.Algorithm != digest.TokensSorted {
		t.Errorf("multiset records: %v %v", d, err)
	}
	data, _ := os.ReadFile(fs.PerRequest)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var first map[string]any
	if len(lines) != 10 || json.Unmarshal([]byte(lines[0]), &first) != nil || first["status"] != 200.0 || first["tokens_from"] != "usage" {
		t.Errorf("per-request records: %d lines, first %v", len(lines), first)
	}
	if err := res.Write(Files{Record: filepath.Join(dir, "no", "such", "dir", "r.json")}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v", err)
	}
}

func TestDistIsNumpys(t *testing.T) {
	d := distOf([]float64{4, 1, 3, 2})
	// numpy: mean 2.5, median 2.5, std 1.1180, p50 2.5, p90 3.7, p95 3.85, p99 3.97
	for got, want := range map[float64]float64{d.Mean: 2.5, d.Median: 2.5, d.Std: math.Sqrt(1.25), d.P[1]: 3.7, d.P[2]: 3.85, d.P[3]: 3.97} {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("got %g, want %g", got, want)
		}
	}
	if z := distOf(nil); z.Mean != 0 || z.P[3] != 0 {
		t.Error("no values: zeros")
	}
}

// TestServerClosingIdleConnections: a server that closes every connection
// after one response, without saying so, gets every request once: the
// client sees the close before writing on the connection again and dials
// a new one; a request written as the close came (a race under load) is
// a failure, connection-closed, and is not sent again.
func TestServerClosingIdleConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns, requests atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				requests.Add(1)
				body := `{"choices": [{"text": "a"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			}()
		}
	}()
	_, prompts := tokenPrompts(t, 5)
	res, err := Run(context.Background(), prompts, Options{URL: "http://" + ln.Addr().String(), Model: "m", Stream: false, Requests: 5})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Summarize(); s.Completed+s.Failures[KindConnectionClosed] != 5 || requests.Load() != int64(s.Completed) || s.Completed == 0 {
		t.Fatalf("summary %+v, %d requests served on %d connections; first failure %+v", s, requests.Load(), conns.Load(), res.Outcomes)
	}
}
