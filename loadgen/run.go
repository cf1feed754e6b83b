package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/redact"
)

// The kinds of failure a record names, each request's in its outcome.
const (
	KindHTTP      = "http-status"   // the server answered with a status other than 200
	KindServer    = "server-error"  // it answered, and its answer says error
	KindResponse  = "bad-response"  // an answer that is not an OpenAI response
	KindStream    = "broken-stream" // a stream that ended early or broke its format
	KindTimeout   = "timeout"       // the request's deadline passed
	KindConnect   = "connect"       // no connection: refused, unresolved, or past the connect deadline
	KindNetwork   = "network"       // the connection broke
	KindCancelled = "cancelled"     // the run ended (its deadline, or it was stopped) with the request in flight
	KindNotSent   = "not-sent"      // the run ended before the request's turn came
)

// failure is a request's failure of a known kind.
type failure struct{ kind, msg string }

func (f *failure) Error() string { return f.msg }

// errRequestDeadline is the cause of a request's own deadline.
var errRequestDeadline = errors.New("request deadline")

// maxBody bounds a response read whole.
const maxBody = 64 << 20

// Result is a run: one outcome per scheduled request, in order of
// sending, and the digest of the prompts sent.
type Result struct {
	Options  Options
	Unit     digest.Unit
	Start    time.Time
	Duration time.Duration
	Outcomes []Outcome
	// Sent is the digest of the prompts sent, in order of sending, with
	// the unit's ordered algorithm; SentMultiset the same prompts as a
	// multiset (token prompts only: no text algorithm is sorted).
	Sent, SentMultiset *digest.Digest
	SentRecords        []digest.Record
	// Ended says why the run ended before sending every request ("" when
	// it sent them all; a duration run's time running out is no end of
	// this kind).
	Ended string
	// Warmup are the warm-up requests' outcomes, sent before Start and
	// measured by nothing; WarmupSent their prompts' digest, in order of
	// sending, with WarmupRecords; WarmupEnded as Ended, for them.
	Warmup        []Outcome
	WarmupSent    *digest.Digest
	WarmupRecords []digest.Record
	WarmupEnded   string
	// Cycle is a duration run's prompts once, in order (the cycle its
	// requests go through), with CycleRecords; nil for a counted run.
	Cycle        *digest.Digest
	CycleRecords []digest.Record
}

// Run sends the workload of a prompts file's prompts (RunItems).
func Run(ctx context.Context, prompts []digest.Prompt, o Options) (*Result, error) {
	return RunItems(ctx, PromptItems(prompts), o)
}

// RunItems sends the workload: request k carries item k mod o.Requests
// of items, after o.Warmup warm-up requests. It returns an error only for
// options it refuses, before sending anything; whatever happens to a
// request is in its outcome.
func RunItems(ctx context.Context, items []Item, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.check(items); err != nil {
		return nil, err
	}
	c, err := newClient(o, items[:o.Requests])
	if err != nil {
		return nil, err
	}
	return c.run(ctx, items[0].Prompt.Unit), nil
}

// client is one run's prepared requests.
type client struct {
	o        Options
	target   target
	prompts  []digest.Prompt
	requests [][]byte // each item's whole HTTP request, made once
	start    time.Time
}

func newClient(o Options, items []Item) (*client, error) {
	full, err := o.Target()
	if err != nil {
		return nil, err
	}
	c := &client{o: o, prompts: make([]digest.Prompt, len(items)), requests: make([][]byte, len(items))}
	if c.target, err = parseTarget(full); err != nil {
		return nil, err
	}
	for i, it := range items {
		body, err := o.itemBody(it)
		if err != nil {
			return nil, fmt.Errorf("prompt on line %d: %w", it.Prompt.Line, err)
		}
		c.prompts[i], c.requests[i] = it.Prompt, o.request(c.target, body)
	}
	return c, nil
}

// run sends the warm-up requests, waits for them, then the measured ones
// (phase.go); the sent digest is of the measured requests alone.
func (c *client) run(ctx context.Context, unit digest.Unit) *Result {
	o := c.o
	res := &Result{Options: o, Unit: unit}
	runCtx, cancel := context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("the run's timeout %s passed", o.Timeout))
	defer cancel()
	if o.Warmup > 0 {
		w := c.startPhase(phaseSpec{total: o.Warmup, sched: newSchedule(0, 0, 0, 0, 0)}, nil)
		w.send(runCtx)
		res.Warmup, res.WarmupEnded = w.outcomes(), w.ended
		d, _ := w.sent.Sum() // held in memory (records kept): Sum cannot fail
		res.WarmupSent, res.WarmupRecords = &d, w.sent.Records()
	}
	total := o.Requests * o.Rounds
	if o.Duration > 0 {
		total = -1
	}
	spec := phaseSpec{total: total, until: o.Duration, sched: newSchedule(o.Rate, o.Burstiness, o.Seed, o.RampFrom, o.RampOver), gated: o.RampOver > 0 && o.Rate == 0}
	prog := startProgress(o.Progress, o.ProgressEvery, max(total, 0), time.Now())
	m := c.startPhase(spec, prog)
	res.Start = c.start
	m.send(runCtx)
	res.Outcomes, res.Ended = m.outcomes(), m.ended
	c.cycle(res)
	res.Duration = time.Since(c.start)
	prog.stop(res)
	d, _ := m.sent.Sum() // held in memory (records kept): Sum cannot fail
	res.Sent, res.SentRecords = &d, m.sent.Records()
	if unit == digest.UnitTokens {
		b, _ := digest.NewBuilder(digest.TokensSorted, false)
		for _, r := range res.SentRecords {
			b.AddRecord(r)
		}
		md, _ := b.Sum()
		res.SentMultiset = &md
	}
	return res
}

// endCause says why the run's context ended.
func endCause(ctx context.Context) string {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return "the client was stopped"
	}
	return cause.Error()
}

// do sends one request and fills its outcome.
func (w *worker) do(runCtx context.Context, out *Outcome, p digest.Prompt, req []byte) {
	ctx, cancel := context.WithTimeoutCause(runCtx, w.c.o.RequestTimeout, errRequestDeadline)
	defer cancel()
	sent := time.Now()
	out.Send = sent.Sub(w.c.start)
	if err := w.exchangeOutcome(ctx, req, p, sent, out); err != nil {
		out.Kind, out.Error = classify(err, ctx, runCtx, time.Since(sent), w.c.o.RequestTimeout)
		out.Error = redact.URL(out.Error)
	}
}

// exchangeOutcome sends req and reads its response into out.
func (w *worker) exchangeOutcome(ctx context.Context, req []byte, p digest.Prompt, sent time.Time, out *Outcome) error {
	o := w.c.o
	resp, done, err := w.roundTrip(ctx, req)
	if err != nil {
		return err
	}
	err = readResponse(resp, o, p, sent, out)
	// What is left is drained, a little, so the connection serves the
	// next request; a body with more is given up with its connection.
	const drain = 64 << 10
	n, drainErr := io.Copy(io.Discard, io.LimitReader(resp.Body, drain))
	done(err == nil && drainErr == nil && n < drain && resp.Body.Close() == nil)
	return err
}

// readResponse reads a response: its status, then a stream or a whole body.
func readResponse(resp *http.Response, o Options, p digest.Prompt, sent time.Time, out *Outcome) error {
	out.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var c chunk
		msg := truncate(string(data))
		if json.Unmarshal(data, &c) == nil && errorText(c.Error) != "" {
			msg = errorText(c.Error)
		}
		return &failure{KindHTTP, fmt.Sprintf("HTTP %d: %s", resp.StatusCode, msg)}
	}
	if o.Stream {
		if ct := resp.Header.Get("Content-Type"); !isEventStream(ct) {
			return &failure{KindResponse, fmt.Sprintf("asked for a stream, the server answered Content-Type %q", ct)}
		}
		return readStream(resp.Body, o.Endpoint, p, sent, out)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(data) > maxBody {
		return &failure{KindResponse, fmt.Sprintf("the response is larger than %d bytes", maxBody)}
	}
	return decodeResponse(data, o.Endpoint, p, sent, out)
}

// classify names a request's error: its kind and what to say.
func classify(err error, reqCtx, runCtx context.Context, after, deadline time.Duration) (string, string) {
	var f *failure
	var op *net.OpError
	switch {
	case errors.As(err, &f): // what the server answered, whatever happened since
		return f.kind, f.msg
	case errors.Is(context.Cause(reqCtx), errRequestDeadline):
		return KindTimeout, fmt.Sprintf("request deadline %s passed (after %.3fs)", deadline, after.Seconds())
	case runCtx.Err() != nil:
		return KindCancelled, fmt.Sprintf("cancelled after %.3fs: %s", after.Seconds(), endCause(runCtx))
	case errors.As(err, &op) && op.Op == "dial":
		return KindConnect, err.Error()
	}
	return KindNetwork, err.Error()
}

// isEventStream says whether a Content-Type is server-sent events.
func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}
