package loadgen

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progress prints a line every interval while the run goes, and the last
// when it ends: how many requests are done and failed, in flight, and at
// what rate.
type progress struct {
	w          io.Writer
	total      int
	start      time.Time
	sent, done atomic.Int64
	failed     atomic.Int64
	stopCh     chan struct{}
	wg         sync.WaitGroup
}

func startProgress(w io.Writer, every time.Duration, total int, start time.Time) *progress {
	p := &progress{w: w, total: total, start: start, stopCh: make(chan struct{})}
	if w == nil {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.print("")
			case <-p.stopCh:
				return
			}
		}
	}()
	return p
}

func (p *progress) started() { p.sent.Add(1) }

// add counts sent requests started, done of them ended and failed of
// those failed.
func (p *progress) add(sent, done, failed int64) {
	if sent != 0 {
		p.sent.Add(sent)
	}
	if done != 0 {
		p.done.Add(done)
	}
	if failed != 0 {
		p.failed.Add(failed)
	}
}

func (p *progress) finished(ok bool) {
	p.done.Add(1)
	if !ok {
		p.failed.Add(1)
	}
}

func (p *progress) print(end string) {
	done, sent := p.done.Load(), p.sent.Load()
	secs := time.Since(p.start).Seconds()
	// Progress is for a person watching; a writer that fails loses a line, never the run.
	of := fmt.Sprintf("/%d", p.total)
	if p.total == 0 { // a duration run: no count is known
		of = ""
	}
	_, _ = fmt.Fprintf(p.w, "abbench load: %d%s done (%d failed), %d in flight, %.1f req/s over %.1fs%s\n",
		done, of, p.failed.Load(), sent-done, float64(done)/max(secs, 1e-9), secs, end)
}

// stop ends the progress lines with the run's last.
func (p *progress) stop(r *Result) {
	close(p.stopCh)
	p.wg.Wait()
	if p.w == nil {
		return
	}
	end := ""
	if r.Ended != "" {
		end = fmt.Sprintf("; %d not sent: %s", max(int64(p.total)-p.sent.Load(), 1), r.Ended)
	}
	p.print(end)
}
