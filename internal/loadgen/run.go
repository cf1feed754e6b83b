package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/abbench/abbench/internal/digest"
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
	// KindOversized is an answer past a cap: a response head over
	// maxHead, a stream line over maxEvent, a body over maxBody.
	KindOversized = "oversized"
	// KindConnectionClosed is a request written whole that got no byte
	// of an answer before the server closed the connection: it may have
	// been served, so it is never sent again.
	KindConnectionClosed = "connection-closed"
	// KindStrayBytes is a request whose complete response was followed
	// on its kept-alive connection by bytes no request asked for (an
	// answer sent twice): what followed is no next request's answer.
	KindStrayBytes = "stray-bytes"
	// KindOverMaxTokens is an answer of more tokens than max_tokens: more
	// content events, or a usage that says more.
	KindOverMaxTokens = "over-max-tokens"
	// KindUsageMismatch is a usage that says fewer tokens than came.
	KindUsageMismatch = "usage-mismatch"
)

// failure is a request's failure of a known kind.
type failure struct{ kind, msg string }

func (f *failure) Error() string { return f.msg }

// maxBody bounds a response read whole: every worker may hold one.
const maxBody = 8 << 20

// Result is a run: what it counted of its scheduled requests, in order of
// sending, and the digest of the prompts sent.
type Result struct {
	Options  Options
	Unit     digest.Unit
	Start    time.Time
	Duration time.Duration
	// Outcomes are the first KeptOutcomes requests' outcomes, in order of
	// sending; Summarize, Record and the files are of every request.
	Outcomes []Outcome
	// Sent is the digest of the prompts sent, in order of sending, with
	// the unit's ordered algorithm; SentMultiset the same prompts as a
	// multiset (token prompts only: no text algorithm is sorted).
	// SentRecords are their records: the items' records in turn.
	Sent, SentMultiset *digest.Digest
	SentRecords        digest.Cycle
	// Ended says why the run ended before sending every request ("" when
	// it sent them all; a duration run's time running out is no end of
	// this kind).
	Ended string
	// Warmup are the warm-up requests' outcomes, sent before Start and
	// measured by nothing; WarmupSent their prompts' digest, in order of
	// sending, with WarmupRecords; WarmupEnded as Ended, for them.
	Warmup        []Outcome
	WarmupSent    *digest.Digest
	WarmupRecords digest.Cycle
	WarmupEnded   string
	// Cycle is a duration run's prompts once, in order (the cycle its
	// requests go through), with CycleRecords; nil for a counted run.
	Cycle        *digest.Digest
	CycleRecords []digest.Record
	// measured and warmup are what the phases counted of every request
	// (nil in a Result made by hand: its Outcomes are counted).
	measured, warmup *tally
}

// Close gives back the files a run spooled its per-request lines and
// arrays to: Write, Record and Summarize cannot be called after it.
func (r *Result) Close() {
	if r.measured != nil {
		r.measured.close()
	}
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
	t := newTally(&spoolSpec{dir: o.SpoolDir, perRequest: o.PerRequest, noLines: o.NoPerRequest})
	if t.err != nil {
		return nil, t.err
	}
	return c.run(ctx, items[0].Prompt.Unit, t), nil
}

// client is one run's prepared requests.
type client struct {
	o        Options
	target   target
	prompts  []digest.Prompt
	requests [][]byte        // each item's whole HTTP request, made once
	records  []digest.Record // each item's record, hashed once
	start    time.Time
	// secrets are the values no error may hold: the API key and
	// Options.Secrets.
	secrets redact.Values
}

func newClient(o Options, items []Item) (*client, error) {
	full, err := o.Target()
	if err != nil {
		return nil, err
	}
	c := &client{o: o, prompts: make([]digest.Prompt, len(items)), requests: make([][]byte, len(items)),
		records: make([]digest.Record, len(items)), secrets: slices.Clone(o.Secrets)}
	c.secrets.Add(o.APIKey)
	if c.target, err = parseTarget(full); err != nil {
		return nil, err
	}
	for i, it := range items {
		body, err := o.itemBody(it)
		if err != nil {
			return nil, fmt.Errorf("prompt on line %d: %w", it.Prompt.Line, err)
		}
		c.prompts[i], c.requests[i] = it.Prompt, o.request(c.target, body)
		c.records[i] = it.Prompt.Record()
	}
	return c, nil
}

// run sends the warm-up requests, waits for them, then the measured ones
// (phase.go); the sent digest is of the measured requests alone.
func (c *client) run(ctx context.Context, unit digest.Unit, t *tally) *Result {
	o := c.o
	res := &Result{Options: o, Unit: unit, measured: t, warmup: newTally(nil)}
	runCtx, cancel := context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("the run's timeout %s passed", o.Timeout))
	defer cancel()
	if o.Warmup > 0 {
		w := c.startPhase(phaseSpec{total: o.Warmup, sched: newSchedule(0, 0, 0, 0, 0)}, nil, res.warmup)
		w.send(runCtx)
		res.Warmup, res.WarmupEnded = res.warmup.kept, w.ended
		res.WarmupRecords = w.sent()
		d, _ := res.WarmupRecords.Sum(digest.DefaultFor(unit)) // a known algorithm: Sum cannot fail
		res.WarmupSent = &d
	}
	total := o.Requests * o.Rounds
	if o.Duration > 0 {
		total = -1
	}
	spec := phaseSpec{total: total, until: o.Duration, sched: newSchedule(o.Rate, o.Burstiness, o.Seed, o.RampFrom, o.RampOver), gated: o.RampOver > 0 && o.Rate == 0}
	prog := startProgress(o.Progress, o.ProgressEvery, max(total, 0), time.Now())
	m := c.startPhase(spec, prog, t)
	res.Start = c.start
	m.send(runCtx)
	res.Outcomes, res.Ended = t.kept, m.ended
	c.cycle(res)
	res.Duration = time.Since(c.start)
	prog.stop(res)
	res.SentRecords = m.sent()
	d, _ := res.SentRecords.Sum(digest.DefaultFor(unit)) // a known algorithm: Sum cannot fail
	res.Sent = &d
	if unit == digest.UnitTokens {
		md, _ := res.SentRecords.Sum(digest.TokensSorted)
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
	sent := time.Now()
	deadline := sent.Add(w.c.o.RequestTimeout)
	out.Send = sent.Sub(w.c.start)
	if err := w.exchangeOutcome(runCtx, deadline, req, p, sent, out); err != nil {
		kind, msg := classify(err, deadline, runCtx, time.Since(sent), w.c.o.RequestTimeout)
		// Redacted whole, then cut short: a secret across the cut would
		// leave its first part in clear.
		out.Kind, out.Error = kind, truncate(w.c.secrets.In(msg))
	}
}

// exchangeOutcome sends req and reads its response into out.
func (w *worker) exchangeOutcome(runCtx context.Context, deadline time.Time, req []byte, p digest.Prompt, sent time.Time, out *Outcome) error {
	h, err := w.roundTrip(runCtx, deadline, req)
	if err != nil {
		return err
	}
	err = w.readResponse(h, p, sent, out)
	// What is left is drained, a little, so the connection serves the
	// next request; a body with more is given up with its connection.
	ok := err == nil && !h.close && w.body.finish(64<<10)
	if ok && w.br.Buffered() > 0 {
		err, ok = &failure{KindStrayBytes, strayMsg}, false
	}
	w.done(runCtx, ok && !h.close)
	if w.conn != nil {
		w.prev = out
	}
	return err
}

// readResponse reads a response: its status, then a stream or a whole body.
func (w *worker) readResponse(h head, p digest.Prompt, sent time.Time, out *Outcome) error {
	o := w.c.o
	out.Status = h.status
	if h.status != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(&w.body, 64<<10))
		var c chunk
		msg := plainText(data)
		if decodeChunk(data, &c) == nil && errorText(c.Error) != "" {
			msg = errorText(c.Error)
		}
		return &failure{KindHTTP, fmt.Sprintf("HTTP %d: %s", h.status, msg)}
	}
	if o.Stream {
		if !h.eventStream {
			return &failure{KindResponse, fmt.Sprintf("asked for a stream, the server answered Content-Type %q", h.contentType)}
		}
		if w.sse == nil {
			w.sse = bufio.NewReaderSize(&w.body, 16<<10)
		} else {
			w.sse.Reset(&w.body)
		}
		return readStream(w.sse, &w.chunk, o, p, sent, out)
	}
	data, err := readAll(&w.body, w.buf[:0], maxBody)
	w.buf = data[:0]
	if err != nil {
		return err
	}
	return decodeResponse(data, &w.chunk, o, p, sent, out)
}

// readAll reads r into buf, growing it, up to limit bytes.
func readAll(r io.Reader, buf []byte, limit int) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		switch {
		case len(buf) > limit:
			return buf, &failure{KindOversized, fmt.Sprintf("the response is larger than %d bytes", limit)}
		case errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return buf, err
		}
	}
}

// classify names a request's error: its kind and what to say.
func classify(err error, reqDeadline time.Time, runCtx context.Context, after, deadline time.Duration) (string, string) {
	var f *failure
	var op *net.OpError
	switch {
	case errors.As(err, &f): // what the server answered, whatever happened since
		return f.kind, f.msg
	case !time.Now().Before(reqDeadline) && (runCtx.Err() == nil || errors.Is(err, os.ErrDeadlineExceeded)):
		return KindTimeout, fmt.Sprintf("request deadline %s passed (after %.3fs)", deadline, after.Seconds())
	case runCtx.Err() != nil:
		return KindCancelled, fmt.Sprintf("cancelled after %.3fs: %s", after.Seconds(), endCause(runCtx))
	case errors.As(err, &op) && op.Op == "dial":
		return KindConnect, err.Error()
	}
	return KindNetwork, err.Error()
}
