package arms

import (
	"context"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/scenarios"
)

func TestDrainWaitsForTheLogsToSettle(t *testing.T) {
	c := unitController(t, unitScenario)
	p := addRank(t, c, "server", 0, "")
	// write appends to the log every 50ms for d, or until stop closes.
	write := func(d time.Duration, stop <-chan struct{}, done chan<- struct{}) {
		defer close(done)
		for end := time.Now().Add(d); time.Now().Before(end); {
			if err := appendLog(p, "tokens\n"); err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	drained := func(ctx context.Context, deadline time.Duration) time.Duration {
		c.s.Deadlines.Drain = scenarios.Duration(deadline)
		start := time.Now()
		c.drain(ctx)
		return time.Since(start)
	}

	done := make(chan struct{})
	go write(400*time.Millisecond, nil, done)
	if took := drained(context.Background(), 3*time.Second); took < 500*time.Millisecond || took > 2800*time.Millisecond {
		t.Fatalf("drained in %s: want the writing (350 to 400ms) and 200ms of quiet", took)
	}
	<-done

	stop, done := make(chan struct{}), make(chan struct{})
	go write(time.Minute, stop, done)
	took := drained(context.Background(), time.Second)
	close(stop)
	<-done
	// Bounded by the deadline, not by the log: a loaded machine may add a
	// second to it, never the minute the writer would go on for.
	if took < time.Second || took > 3*time.Second {
		t.Fatalf("drained a log that never settles in %s: want the drain deadline, 1s", took)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// At once, against a deadline ten times what a loaded machine adds.
	if took := drained(ctx, 10*time.Second); took > time.Second {
		t.Fatalf("an interrupted drain took %s of its 10s deadline", took)
	}
}
