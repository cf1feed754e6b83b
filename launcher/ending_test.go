package launcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/abbench/abbench/rundir"
)

// Wait blocks until End, every waiter gets the first outcome, and a Wait
// whose context ends first returns the context's error.
func TestEndingWaitsForTheFirstOutcome(t *testing.T) {
	e := NewEnding()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := e.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait before End: %v, want the context's deadline", err)
	}
	got := make(chan rundir.Outcome, 2)
	for range 2 {
		go func() {
			o, _ := e.Wait(context.Background())
			got <- o
		}()
	}
	e.End(rundir.Outcome{State: Succeeded, ExitCode: 0})
	e.End(rundir.Outcome{State: Failed, ExitCode: 1})
	for range 2 {
		if o := <-got; o.State != Succeeded {
			t.Errorf("a waiter got %+v, want the first outcome", o)
		}
	}
	select {
	case <-e.Done():
	default:
		t.Error("Done is open after End")
	}
}
