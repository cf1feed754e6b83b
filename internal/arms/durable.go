package arms

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// The files a run's result relies on besides status.json (LATEST, which
// names the attempt, and coord/offsets.json, the scope of its evidence)
// are written atomically at once and synced to disk in the background
// while the run goes on; a status.json that says the run ended is written
// only once they are on disk, or the run fails saying which is not. Each
// sync waited for in line cost up to tens of milliseconds on a shared
// disk, between one run's end and the next one's first rank.

// syncPath flushes path's data to disk (a test replaces it).
var syncPath = func(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// durableWait bounds the wait for the background syncs: a disk that
// takes longer fails the run rather than hang it.
const durableWait = 30 * time.Second

// pendingSyncs are the background syncs of one run.
type pendingSyncs struct {
	running sync.WaitGroup
	mu      sync.Mutex
	errs    []error
}

// start syncs path in the background.
func (p *pendingSyncs) start(path string) {
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		if err := syncPath(path); err != nil {
			p.mu.Lock()
			p.errs = append(p.errs, fmt.Errorf("syncing %s to disk: %w", path, err))
			p.mu.Unlock()
		}
	}()
}

// wait waits, within limit, for every sync started and returns their
// errors, each once.
func (p *pendingSyncs) wait(limit time.Duration) error {
	done := make(chan struct{})
	go func() { p.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		return fmt.Errorf("the files the run's result relies on were not on disk within %s", limit)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	err := errors.Join(p.errs...)
	p.errs = nil
	return err
}

// syncLater syncs path to disk in the background, before the run's
// status says it ended.
func (c *controller) syncLater(path string) {
	if c.durable == nil {
		c.durable = &pendingSyncs{}
	}
	c.durable.start(path)
}

// settleSyncs waits for the background syncs before a status that says
// the run ended; one that failed fails the run.
func (c *controller) settleSyncs() {
	if c.durable == nil {
		return
	}
	if err := c.durable.wait(durableWait); err != nil {
		c.fail(reason.New(reason.WriteFailed, "%v: after a crash the run's files could say less than its status", err))
		c.status.State = rundir.StateFailed
	}
}
