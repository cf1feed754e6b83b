package loadgen

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/abbench/abbench/internal/digest"
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
	jobs     chan job
	wg       sync.WaitGroup
	inflight atomic.Int64
	freed    chan struct{} // a request ended (gated phases wait on it)
	// outs hold the outcomes from the oldest not yet counted to the
	// newest handed out, in blocks that never move, so a worker fills its
	// request's in place and says so in done. The dispatcher counts the
	// ended ones into tally in order of sending and gives a block whose
	// outcomes are all counted back to free: what the phase holds spans
	// the requests in flight, not the run. n is how many were handed
	// out, counted how many were counted, sentUpTo how many were sent.
	outs                 []*outcomeBlock
	free                 []*outcomeBlock
	tally                *tally
	n, counted, sentUpTo int
	ended                string
	runCtx               context.Context // the run's, which every request runs in
	// loop, when not nil, sends the phase in place of the workers and
	// the dispatcher's loop (loop_linux.go).
	loop *evloop
}

// outcomeBlock is a block of outcomes and whether each has ended.
type outcomeBlock struct {
	outs [outcomeBlockSize]Outcome
	done [outcomeBlockSize]atomic.Bool
}

// job is a request handed to a worker: its outcome, to fill, and the
// flag to raise when it has.
type job struct {
	out  *Outcome
	done *atomic.Bool
}

// startPhase starts the workers of a phase; its clock starts now.
func (c *client) startPhase(spec phaseSpec, prog *progress, t *tally) *phase {
	p := &phase{c: c, spec: spec, prog: prog, tally: t, jobs: make(chan job), freed: make(chan struct{}, 1)}
	if p.prog == nil {
		p.prog = startProgress(nil, time.Hour, 0, time.Now())
	}
	if p.loop = newLoop(p); p.loop != nil {
		c.start = time.Now()
		return p
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
	// held is the ended request whose connection w keeps: the look at it
	// before the next request is written may still fail it (stray-bytes,
	// w.prev), so it is the dispatcher's to count only once that look is
	// taken, or the connection is given up.
	var held *atomic.Bool
	defer func() {
		w.close()
		if held != nil {
			held.Store(true)
		}
	}()
	for j := range p.jobs {
		out := j.out
		w.do(p.runCtx, out, p.c.prompts[out.Prompt], p.c.requests[out.Prompt])
		if held != nil {
			held.Store(true) // the look before this request is taken
		}
		ok := out.Kind == ""
		if held = nil; w.prev == out {
			held = j.done
		} else {
			j.done.Store(true) // the outcome is the dispatcher's from here
		}
		p.inflight.Add(-1)
		select {
		case p.freed <- struct{}{}:
		default:
		}
		p.prog.finished(ok)
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
	var k int
	if p.loop != nil {
		k = p.loop.run(ctx)
	} else {
		k = p.dispatchAll(ctx)
	}
	close(p.jobs)
	n := len(p.c.prompts)
	if p.ended != "" {
		last := p.spec.total
		if last < 0 {
			last = k + 1
		}
		for j := k; j < last; j++ {
			i := j % n
			out, done := p.next()
			*out = Outcome{Index: j, Prompt: i, Line: p.c.prompts[i].Line, Kind: KindNotSent, Error: "not sent: " + p.ended}
			done.Store(true)
			p.count()
		}
	}
	p.wg.Wait()
	p.count()
}

// dispatchAll hands the phase's requests to the workers in order until
// they are all sent, the phase's time passes or the run ends (p.ended);
// it returns the index of the request whose turn it was.
func (p *phase) dispatchAll(ctx context.Context) int {
	n := len(p.c.prompts)
	k := 0
	for ; p.spec.total < 0 || k < p.spec.total; k++ {
		i := k % n
		out, done := p.next()
		*out = Outcome{Index: k, Prompt: i, Line: p.c.prompts[i].Line, Sent: true}
		err := p.dispatch(ctx, p.spec.sched.next(), job{out, done})
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
		p.count()
	}
	return k
}

// dispatch waits for the request's arrival time and, in a gated phase,
// room under the ramp's concurrency, then hands it to the first free
// worker. errPhaseOver when the phase's time ran out first, the context's
// error when the run ended.
func (p *phase) dispatch(ctx context.Context, at time.Duration, out job) error {
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
func (p *phase) handOver(ctx context.Context, out job) error {
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

// outcomeBlockSize is how many outcomes a block holds: few enough that
// a block is freed, and handed out again, while its memory may still be
// in the cache. With 1024 a place was handed out again 1,000 to 2,000
// requests after it was last touched, and writing each new outcome
// missed the cache (perf record put much of start's own time there).
const outcomeBlockSize = 256

// next is the place of the phase's next outcome and its ended flag,
// lowered.
func (p *phase) next() (*Outcome, *atomic.Bool) {
	at := p.n - p.counted/outcomeBlockSize*outcomeBlockSize // from the first block's start
	if at == len(p.outs)*outcomeBlockSize {
		var b *outcomeBlock
		if k := len(p.free); k > 0 {
			b, p.free = p.free[k-1], p.free[:k-1]
			// Lowered all at once, not with a locked store each as it is
			// handed out: every outcome of a freed block was counted, its
			// flag read raised, so no worker touches the block any more.
			clear(b.done[:])
		} else {
			b = new(outcomeBlock)
		}
		p.outs = append(p.outs, b)
	}
	p.n++
	b := p.outs[at/outcomeBlockSize]
	return &b.outs[at%outcomeBlockSize], &b.done[at%outcomeBlockSize]
}

// count counts the ended outcomes that follow those counted, in order of
// sending, and frees each block whose outcomes are all counted.
func (p *phase) count() {
	for p.counted < p.n {
		b, i := p.outs[0], p.counted%outcomeBlockSize
		if !b.done[i].Load() {
			return
		}
		p.tally.add(&b.outs[i])
		p.counted++
		if p.counted%outcomeBlockSize == 0 {
			p.free = append(p.free, b)
			p.outs[0] = nil
			p.outs = p.outs[1:]
		}
	}
}

// sent is the phase's prompts sent, in order of sending: the items in turn.
func (p *phase) sent() digest.Cycle {
	return digest.Cycle{Records: p.c.records, Count: uint64(p.sentUpTo)}
}
