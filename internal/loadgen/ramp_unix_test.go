//go:build unix

package loadgen

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestRampedConcurrencyWaitsIdle: past a concurrency ramp, with every
// worker busy, the dispatcher waits for one to end; it does not spin.
func TestRampedConcurrencyWaitsIdle(t *testing.T) {
	s := &bodyServer{delay: 150 * time.Millisecond}
	_, prompts := tokenPrompts(t, 2)
	before := cpuTime(t)
	res, err := Run(context.Background(), prompts, Options{URL: newBodyServer(t, s), Model: "m", Requests: 2, Concurrency: 2, RampFrom: 1, RampOver: 20 * time.Millisecond, Duration: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// A spinning dispatcher used 211ms on a loaded 2-core machine, this
	// one 8ms.
	if used := cpuTime(t) - before; used > 100*time.Millisecond {
		t.Errorf("a 600ms run of %d requests, every worker busy most of it, used %s of CPU", len(res.Outcomes), used)
	}
}
