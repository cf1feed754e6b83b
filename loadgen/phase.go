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
	// outs are the phase's outcomes in blocks that never move, so a
	// worker fills its request's in place: a counted phase's all in one
	// block made at its start, a duration phase's in blocks of
	// outcomeBlock. n is how many are in use, sent how many were sent.
	outs        [][]Outcome
	n, sentUpTo int
	ended       string
	runCtx      context.Context // the run's, which every request runs in
}

// startPhase starts the workers of a phase; its clock starts now.
func (c *client) startPhase(spec phaseSpec, prog *progress) *phase {
	p := &phase{c: c, spec: spec, prog: prog, jobs: make(chan *Outcome), freed: make(chan struct{}, 1)}
	if p.prog == nil {
		p.prog = startProgress(nil, time.Hour, 0, time.Now())
	}
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
		out := p.next()
		*out = Outcome{Index: k, Prompt: i, Line: p.c.prompts[i].Line, Sent: true}
		err := p.dispatch(ctx, p.spec.sched.next(), out)
		if err != nil {
			p.n-- // handed to no worker: not sent
		}
		if errors.Is(err, errPhaseOver) {
			break
		}
		if err != nil {
			p.ended = endCause(ctx)
			break
		}
		p.sentUpTo++
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
			*p.next() = Outcome{Index: j, Prompt: i, Line: p.c.prompts[i].Line, Kind: KindNotSent, Error: "not sent: " + p.ended}
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

// outcomeBlock is how many outcomes a duration phase's block holds.
const outcomeBlock = 4096

// next is the place of the phase's next outcome.
func (p *phase) next() *Outcome {
	size := outcomeBlock
	if p.spec.total >= 0 {
		size = max(p.spec.total, 1)
	}
	if p.n == len(p.outs)*size {
		p.outs = append(p.outs, make([]Outcome, size))
	}
	p.n++
	return &p.outs[(p.n-1)/size][(p.n-1)%size]
}

// outcomes are the phase's outcomes, in order of sending: a counted
// phase's block itself, no copy.
func (p *phase) outcomes() []Outcome {
	if len(p.outs) == 1 {
		return p.outs[0][:p.n:p.n]
	}
	out := make([]Outcome, 0, p.n)
	for _, b := range p.outs {
		out = append(out, b[:min(len(b), p.n-len(out))]...)
	}
	return out
}

// sent is the phase's prompts sent, in order of sending: the items in turn.
func (p *phase) sent() digest.Cycle {
	return digest.Cycle{Records: p.c.records, Count: uint64(p.sentUpTo)}
}
