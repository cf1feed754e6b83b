package launcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/rundir"
)

// Ending is a run's outcome as its watcher learns it, the part every
// launcher's Run shares: the watcher ends it once, Wait blocks until then
// (or until its context ends), and Done lets Cancel and Collect see that
// the run is over.
type Ending struct {
	done    chan struct{}
	once    sync.Once
	outcome rundir.Outcome
}

// NewEnding is an Ending not ended yet.
func NewEnding() *Ending { return &Ending{done: make(chan struct{})} }

// End records the run's outcome and wakes every Wait; later calls are
// ignored (the first outcome is the run's).
func (e *Ending) End(o rundir.Outcome) {
	e.once.Do(func() {
		e.outcome = o
		close(e.done)
	})
}

// Done is closed once the run has ended.
func (e *Ending) Done() <-chan struct{} { return e.done }

// Wait returns the run's outcome once it has ended, or ctx's error first.
func (e *Ending) Wait(ctx context.Context) (rundir.Outcome, error) {
	select {
	case <-e.done:
		return e.outcome, nil
	case <-ctx.Done():
		return rundir.Outcome{}, ctx.Err()
	}
}

// EndsWithin reports whether the run ends within d (Cancel's bounded wait
// after it asked the allocation to end).
func (e *Ending) EndsWithin(d time.Duration) bool {
	select {
	case <-e.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Collected is Collect for a run whose files are in dir: dir once the run
// has ended, else an error saying which run (what) has not.
func (e *Ending) Collected(dir, what string) (string, error) {
	select {
	case <-e.done:
		return dir, nil
	default:
		return "", fmt.Errorf("%s has not ended", what)
	}
}

// NewMarker is a fresh random value that marks every process of one
// allocation (EnvAllocation in each backend), so that what survives it
// can be found.
func NewMarker() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
