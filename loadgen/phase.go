package loadgen

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/abbench/abbench/digest"
)

// phaseSpec is what one stretch of sending sends: total requests (-1:
// until the time until has passed since the phase began), on sched's
// arrival times, with gated the in-flight requests held to the
// concurrency ramp.
type phaseSpec struct {
	total int
	until time.Duration
	sched *schedule
	gated bool
}

// phase is the warm-up or the measured requests on their way: one
// dispatcher hands requests in order of sending to Concurrency workers,
// so the order (and the digest) never depends on timing.
type phase struct {
	c        *client
	spec     phaseSpec
	prog     *progress
	jobs     chan *Outcome
	wg       sync.WaitGroup
	inflight atomic.Int64
	freed    chan struct{} // a request ended (gated phases wait on it)
	outs     []*Outcome
	sent     *digest.Builder
	ended    string
	runCtx   context.Context // the run's, which every request runs in
}

// startPhase starts the workers of a phase; its clock starts now.
func (c *client) startPhase(spec phaseSpec, prog *progress) *phase {
	p := &phase{c: c, spec: spec, prog: prog, jobs: make(chan *Outcome), freed: make(chan struct{}, 1)}
	if p.prog == nil {
		p.prog = startProgress(nil, time.Hour, 0, time.Now())
	}
	// Held in memory: Sum cannot fail, and the records are written.
	p.sent, _ = digest.NewBuilder(digest.DefaultFor(c.prompts[0].Unit), true)
	c.start = time.Now()
	for range c.o.Concurrency {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// work sends the requests handed to it, one at a time.
func (p *phase) work() {
	defer p.wg.Done()
	w := &worker{c: p.c}
	defer w.close()
	for out := range p.jobs {
		w.do(p.runCtx, out, p.c.prompts[out.Prompt], p.c.requests[out.Prompt])
		p.inflight.Add(-1)
		select {
		case p.freed <- struct{}{}:
		default:
		}
		p.prog.finished(out.Kind == "")
	}
}

// errPhaseOver is a duration phase's time running out: no failure.
var errPhaseOver = errors.New("the duration passed")

// send dispatches the phase's requests in order, then waits for those in
// flight. When the run ends early, the rest of a counted phase are
// outcomes of kind not-sent (of a duration phase, the one whose turn it
// was).
func (p *phase) send(ctx context.Context) {
	p.runCtx = ctx
	n := len(p.c.prompts)
	k := 0
	for ; p.spec.total < 0 || k < p.spec.total; k++ {
		i := k % n
		out := &Outcome{Index: k, Prompt: i, Line: p.c.prompts[i].Line, Sent: true}
		err := p.dispatch(ctx, p.spec.sched.next(), out)
		if errors.Is(err, errPhaseOver) {
			break
		}
		if err != nil {
			p.ended = endCause(ctx)
			break
		}
		p.outs = append(p.outs, out)
		p.sent.AddRecord(p.c.records[i])
		p.prog.started()
	}
	close(p.jobs)
	if p.ended != "" {
		last := p.spec.total
		if last < 0 {
			last = k + 1
		}
		for j := k; j < last; j++ {
			i := j % n
			p.outs = append(p.outs, &Outcome{Index: j, Prompt: i, Line: p.c.prompts[i].Line, Kind: KindNotSent, Error: "not sent: " + p.ended})
		}
	}
	p.wg.Wait()
}

// dispatch waits for the request's arrival time and, in a gated phase,
// room under the ramp's concurrency, then hands it to the first free
// worker. errPhaseOver when the phase's time ran out first, the context's
// error when the run ended.
func (p *phase) dispatch(ctx context.Context, at time.Duration, out *Outcome) error {
	o := p.c.o
	for {
		now := time.Since(p.c.start)
		if p.spec.until > 0 && now >= p.spec.until {
			return errPhaseOver
		}
		var wait time.Duration
		var wake <-chan struct{}
		switch {
		case at > now:
			wait = at - now
		case p.spec.gated && now < o.RampOver && int(p.inflight.Load()) >= o.allowedAt(now):
			// Past the ramp the workers alone cap what is in flight.
			wait, wake = o.nextStep(now)-now, p.freed
		default:
			return p.handOver(ctx, out)
		}
		if err := p.sleep(ctx, now, wait, wake); err != nil {
			return err
		}
	}
}

// handOver gives out to the first free worker, or gives up when the run
// ends or the phase's time runs out.
func (p *phase) handOver(ctx context.Context, out *Outcome) error {
	p.inflight.Add(1)
	var over <-chan time.Time
	if p.spec.until > 0 {
		t := time.NewTimer(p.spec.until - time.Since(p.c.start))
		defer t.Stop()
		over = t.C
	}
	select {
	case p.jobs <- out:
		return nil
	case <-over:
		p.inflight.Add(-1)
		return errPhaseOver
	case <-ctx.Done():
		p.inflight.Add(-1)
		return ctx.Err()
	}
}

// sleep waits d (never past the phase's end), or until wake, or the run's end.
func (p *phase) sleep(ctx context.Context, now, d time.Duration, wake <-chan struct{}) error {
	if p.spec.until > 0 {
		d = min(d, p.spec.until-now)
	}
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// outcomes are the phase's outcomes, in order of sending.
func (p *phase) outcomes() []Outcome {
	out := make([]Outcome, len(p.outs))
	for i, o := range p.outs {
		out[i] = *o
	}
	return out
}
