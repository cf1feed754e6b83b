package loadgen

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
)

// bodyServer answers every request at once (after delay) with one token
// and keeps each request's body and its arrival, for the workload tests.
type bodyServer struct {
	delay    time.Duration
	mu       sync.Mutex
	bodies   []map[string]any
	at       []time.Time
	inflight atomic.Int64
	// peakBy is the most requests in flight seen before each cut-off.
	peak atomic.Int64
}

func (s *bodyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	s.mu.Lock()
	s.bodies, s.at = append(s.bodies, body), append(s.at, time.Now())
	s.mu.Unlock()
	time.Sleep(s.delay)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"choices": [{"text": "x", "message": {"content": "x"}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}`)
}

func newBodyServer(t *testing.T, s *bodyServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSyntheticIsItsSpec: a synthetic workload is its values: the same
// spec gives the same prompts, another seed or input length others; each
// request carries input_len token IDs in the range and output_len as
// max_tokens; what the client sent is DigestItems of the spec.
func TestSyntheticIsItsSpec(t *testing.T) {
	spec, err := ParseSynthetic("prompts=8,input_len=16,output_len=4,seed=7,vocab_min=100,vocab_max=200")
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := DigestItems(spec.Items(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"prompts=8,input_len=16,output_len=4,seed=8", "prompts=8,input_len=17,output_len=4,seed=7"} {
		o, err := ParseSynthetic(other + ",vocab_min=100,vocab_max=200")
		if err != nil {
			t.Fatal(err)
		}
		if d, _, _ := DigestItems(o.Items(), ""); d == want {
			t.Errorf("%s digests as %s does", other, spec)
		}
	}
	s := &bodyServer{}
	res, err := RunItems(context.Background(), spec.Items(), Options{URL: newBodyServer(t, s), Model: "m", Requests: 8, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if *res.Sent != want || want.Algorithm != digest.TokensOrdered {
		t.Errorf("sent %s, the spec digests to %s", res.Sent, want)
	}
	for _, b := range s.bodies {
		toks, _ := b["prompt"].([]any)
		if len(toks) != 16 || b["max_tokens"] != 4.0 {
			t.Fatalf("request %v: want 16 token IDs and max_tokens 4", b)
		}
		for _, tok := range toks {
			if v := tok.(float64); v < 100 || v >= 200 {
				t.Fatalf("token %g outside [100, 200)", v)
			}
		}
	}
	for _, bad := range []string{"prompts=0,input_len=1", "prompts=1,input_len=1,vocab_min=5,vocab_max=5", "prompts=1,input_len=1,x=2", "prompts=1,prompts=2,input_len=1"} {
		if _, err := ParseSynthetic(bad); err == nil {
			t.Errorf("ParseSynthetic(%q) took it", bad)
		}
	}
}

// TestMultiTurnSendsTheDatasetsHistory: every user turn of a conversation
// is a chat request carrying the turns before it, the dataset's own
// replies among them, and the next reply's words as max_tokens; what was
// sent digests as abbench digest reads the file.
func TestMultiTurnSendsTheDatasetsHistory(t *testing.T) {
	const file = "../../testdata/datasets/sharegpt-small.json"
	items, err := ReadDataset(Dataset{Path: file, MultiTurn: true})
	if err != nil {
		t.Fatal(err)
	}
	s := &bodyServer{}
	res, err := RunItems(context.Background(), items, Options{URL: newBodyServer(t, s), Model: "m", Endpoint: Chat, Requests: len(items)})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := digest.DigestConversations(file, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if *res.Sent != fd.Digest || res.Sent.Count != 7 {
		t.Errorf("sent %s, abbench digest reads %s", res.Sent, fd.Digest)
	}
	// The second request is conversation 1's second turn: its history is
	// the dataset's, and the reply it asks for has 9 words.
	msgs, _ := s.bodies[1]["messages"].([]any)
	if len(msgs) != 3 || msgs[1].(map[string]any)["content"] != "The capital of France is Paris, on the Seine." || s.bodies[1]["max_tokens"] != 9.0 {
		t.Errorf("second request %v", s.bodies[1])
	}
	if first, err := ReadDataset(Dataset{Path: file, MultiTurn: true, Limit: 3}); err != nil || len(first) != 3 || !slices.Equal(first[2].Prompt.Body, items[2].Prompt.Body) {
		t.Errorf("the first 3 items: %d, %v", len(first), err)
	}
	if _, err := RunItems(context.Background(), items, Options{URL: "http://h:1", Model: "m", Requests: len(items)}); err == nil {
		t.Error("multi-turn requests on endpoint completions were taken")
	}
	if _, err := RunItems(context.Background(), items, Options{URL: "http://h:1", Model: "m", Endpoint: Chat, MaxTokens: 5, Requests: len(items)}); err == nil {
		t.Error("max tokens beside the dataset's own output lengths was taken")
	}
}

// TestDurationRunCyclesItsPrompts: a duration run sends until the time is
// up, request k carrying prompt k mod n, none failed or not sent; its
// sent records are that cyclic prefix.
func TestDurationRunCyclesItsPrompts(t *testing.T) {
	s := &bodyServer{delay: 5 * time.Millisecond}
	_, prompts := tokenPrompts(t, 3)
	start := time.Now()
	res, err := Run(context.Background(), prompts, Options{URL: newBodyServer(t, s), Model: "m", Requests: 3, Concurrency: 2, Duration: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 150*time.Millisecond || took > 2*time.Second {
		t.Errorf("a 150ms run took %s", took)
	}
	if len(res.Outcomes) < 4 || res.Ended != "" || int(res.Sent.Count) != len(res.Outcomes) {
		t.Fatalf("%d outcomes, ended %q, sent %s", len(res.Outcomes), res.Ended, res.Sent)
	}
	if file, _, _ := DigestItems(PromptItems(prompts), ""); res.Cycle == nil || *res.Cycle != file || len(res.CycleRecords) != 3 {
		t.Errorf("cycle %v, want the prompts once, %s", res.Cycle, file)
	}
	// A request handed out just before the duration ends is stamped as it
	// goes out, a moment later: on a loaded machine under the race
	// detector, that moment was past the end (3 runs in 8).
	const handOut = 250 * time.Millisecond
	for k, o := range res.Outcomes {
		if !o.OK() || o.Prompt != k%3 || slices.Collect(res.SentRecords.All())[k] != prompts[k%3].Record() || o.Send >= 150*time.Millisecond+handOut {
			t.Fatalf("request %d: %+v", k, o)
		}
	}
	if _, err := Run(context.Background(), prompts, Options{URL: "http://h:1", Model: "m", Requests: 3, Duration: time.Minute, Timeout: time.Minute}); err == nil {
		t.Error("a duration as long as the timeout was taken")
	}
}

// TestWarmupIsSentFirstAndNotMeasured: warm-up requests go first and are
// waited for; the measured requests start again at prompt 0, and the sent
// digest is theirs alone (the prompts file's), the warm-up's its own.
func TestWarmupIsSentFirstAndNotMeasured(t *testing.T) {
	s := &bodyServer{}
	path, prompts := tokenPrompts(t, 4)
	res, err := Run(context.Background(), prompts, Options{URL: newBodyServer(t, s), Model: "m", Requests: 4, Concurrency: 2, Warmup: 3})
	if err != nil {
		t.Fatal(err)
	}
	file, _ := digest.ReadFile(path, digest.ReadOptions{})
	if *res.Sent != file.Digest || len(res.Outcomes) != 4 || len(res.Warmup) != 3 || res.WarmupSent.Count != 3 {
		t.Errorf("sent %s (file %s), %d outcomes, %d warm-up, warm-up digest %v", res.Sent, file.Digest, len(res.Outcomes), len(res.Warmup), res.WarmupSent)
	}
	if len(s.bodies) != 7 {
		t.Fatalf("the server received %d requests, want 3 + 4", len(s.bodies))
	}
	for i, o := range res.Warmup {
		if !o.OK() || o.Prompt != i {
			t.Errorf("warm-up %d: %+v", i, o)
		}
	}
	if rec := parseRecord(t, res, 4); rec.Completed != 4 {
		t.Errorf("the record counts %d completed, want the 4 measured", rec.Completed)
	}
	rec, err := res.Record(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rec["warmup_requests"] != 3 || rec["warmup_failed"] != 0 || rec["warmup_prompt_digest"] != res.WarmupSent.String() {
		t.Errorf("the record's warm-up: %v %v %v", rec["warmup_requests"], rec["warmup_failed"], rec["warmup_prompt_digest"])
	}
}

// TestRampedRate: a rate ramp draws the same seeded gaps in operational
// time: the early gaps are longer than the late ones, the times rise, and
// past the ramp the gaps have the target rate's mean.
func TestRampedRate(t *testing.T) {
	s := newSchedule(100, 1, 3, 10, 2*time.Second)
	var arr []time.Duration
	for range 4000 {
		arr = append(arr, s.next())
	}
	var early, late []float64
	for i := 1; i < len(arr); i++ {
		if arr[i] < arr[i-1] {
			t.Fatalf("arrival %d at %s before %s", i, arr[i], arr[i-1])
		}
		gap := (arr[i] - arr[i-1]).Seconds()
		switch {
		case arr[i] < 200*time.Millisecond:
			early = append(early, gap)
		case arr[i] > 3*time.Second:
			late = append(late, gap)
		}
	}
	if e, l := distOf(early).Mean, distOf(late).Mean; e < 3*l || l < 0.009 || l > 0.011 {
		t.Errorf("mean gap early %g, late %g: want the early several times the late, the late 0.01", e, l)
	}
	// The ramp's cumulative count is its mean: (10+100)/2 rps over 2s.
	n := 0
	for _, a := range arr {
		if a < 2*time.Second {
			n++
		}
	}
	if n < 95 || n > 125 {
		t.Errorf("%d requests within the 2s ramp, want about 110", n)
	}
}

// TestRampedConcurrency: requests in flight rise from the ramp's start to
// the concurrency; early on no more than the start are in flight.
func TestRampedConcurrency(t *testing.T) {
	o := Options{Concurrency: 8, RampFrom: 1, RampOver: 800 * time.Millisecond}
	for _, c := range []struct {
		at   time.Duration
		want int
	}{{0, 1}, {99 * time.Millisecond, 1}, {101 * time.Millisecond, 1}, {400 * time.Millisecond, 4}, {799 * time.Millisecond, 7}, {time.Second, 8}} {
		if got := o.allowedAt(c.at); got != c.want {
			t.Errorf("allowed at %s: %d, want %d", c.at, got, c.want)
		}
	}
	if step := o.nextStep(0); step < 114*time.Millisecond || step > 115*time.Millisecond {
		t.Errorf("the first step after 0 at %s, want 800ms/7", step)
	}
	s := &bodyServer{delay: 20 * time.Millisecond}
	_, prompts := tokenPrompts(t, 4)
	res, err := Run(context.Background(), prompts, Options{URL: newBodyServer(t, s), Model: "m", Requests: 4, Concurrency: 8, RampFrom: 1, RampOver: 800 * time.Millisecond, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.peak.Load(); p != 1 || len(res.Outcomes) < 2 {
		t.Errorf("peak in flight %d over the ramp's first 100ms (want 1), %d requests", p, len(res.Outcomes))
	}
}

// TestDurationRunStoppedEarly: a duration run stopped before its time is
// up says why, and the request whose turn it was is a failure (not-sent):
// a run cut short is never a clean one.
func TestDurationRunStoppedEarly(t *testing.T) {
	s := &bodyServer{delay: 20 * time.Millisecond}
	_, prompts := tokenPrompts(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, prompts, Options{URL: newBodyServer(t, s), Model: "m", Requests: 2, Duration: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Outcomes[len(res.Outcomes)-1]
	if res.Ended == "" || last.Kind != KindNotSent || last.Index != len(res.Outcomes)-1 || res.Summarize().Failed == 0 {
		t.Errorf("ended %q, last outcome %+v", res.Ended, last)
	}
}

// A synthetic workload names its lengths and seed: one left out is a
// usage error naming it, not a default nobody chose (a newcomer's
// prompts=4,input_len=8 ran with no max_tokens sent and seed 0).
func TestSyntheticNamesItsLengthsAndSeed(t *testing.T) {
	for spec, want := range map[string]string{
		"prompts=4,input_len=8":              "give output_len and seed too",
		"prompts=4,input_len=8,output_len=0": "give seed too",
		"prompts=4,input_len=8,seed=1":       "give output_len too",
	} {
		if _, err := ParseSynthetic(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	if s, err := ParseSynthetic("prompts=4,input_len=8,output_len=0,seed=7"); err != nil || s.OutputLen != 0 || s.Seed != 7 {
		t.Errorf("every key given: %+v, %v", s, err)
	}
}

// A request of several messages sent to the completions endpoint is
// named where it is in its file: a ShareGPT array's conversation, not a
// "line" of a file that is one JSON value.
func TestChatOnlyRequestIsNamedByItsConversation(t *testing.T) {
	items, err := ReadDataset(Dataset{Path: "../../testdata/datasets/sharegpt-small.json"})
	if err != nil {
		t.Fatal(err)
	}
	errs := Options{Endpoint: Completions}.checkWorkload(items)
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "sharegpt-small.json: conversation ") || !strings.Contains(errs[0].Error(), "--endpoint chat") {
		t.Errorf("got %v", errs)
	}
}
