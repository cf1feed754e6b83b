package launcher

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/rundir"
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

// Collect and Cancel's bounded wait see the end, and only the end; every
// allocation's marker is its own.
func TestEndingCollectsOnlyOnceEnded(t *testing.T) {
	e := NewEnding()
	if dir, err := e.Collected("/runs/1-a", "test run 1-a"); err == nil || dir != "" || !strings.Contains(err.Error(), "test run 1-a has not ended") {
		t.Fatalf("collected before the end: %q, %v", dir, err)
	}
	if e.EndsWithin(10 * time.Millisecond) {
		t.Fatal("EndsWithin said ended before End")
	}
	e.End(rundir.Outcome{State: Succeeded})
	if dir, err := e.Collected("/runs/1-a", "test run 1-a"); err != nil || dir != "/runs/1-a" {
		t.Fatalf("collected after the end: %q, %v", dir, err)
	}
	if !e.EndsWithin(time.Hour) {
		t.Fatal("EndsWithin did not see the end")
	}
	a, b := NewMarker(), NewMarker()
	if len(a) != 16 || strings.Trim(a, "0123456789abcdef") != "" || a == b {
		t.Fatalf("markers %q and %q: want two different 16-digit hex values", a, b)
	}
}
