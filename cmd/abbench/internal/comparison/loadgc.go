package comparison

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Loading thousands of runs allocates most of what a comparison does (each
// bundle's files, parsed, re-derived): under Go's default the collector
// runs each time the heap doubles, about once for every byte allocated
// marking a live byte, a tenth of the CPU of comparing 10,000 runs. While
// the runs load, the collector waits instead until the heap reaches a
// limit: loadingLimit, or twice the live heap once that is more (so a
// comparison that holds more than half the limit collects as often as
// under the default, never without end), and the heap grows at most
// loadingGCPercent between collections below it. The limit is Go's
// runtime's, on all its memory: the peak stays about the limit's (10,000
// runs: 200 MiB).
const (
	loadingLimit     = 192 << 20
	loadingGCPercent = 400
	// loadingPoll is how often the live heap is read to move the limit.
	loadingPoll = 20 * time.Millisecond
)

// loadingGC sets the collector for loading runs, with base the least
// limit, and returns what sets it back. GOGC or GOMEMLIMIT in the
// environment is the user's setting: it is left alone.
func loadingGC(base int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(loadingGCPercent)
	limit := debug.SetMemoryLimit(base)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(loadingPoll)
		defer tick.Stop()
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(live)
				if live[0].Value.Kind() == metrics.KindUint64 {
					debug.SetMemoryLimit(max(base, 2*int64(live[0].Value.Uint64())))
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped // the poller sets no limit after this
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}
