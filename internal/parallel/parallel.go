// Package parallel runs independent pieces of work on every core: the one
// bounded worker pool of abbench (verifying thousands of bundles, reading
// thousands of rank logs, preparing and starting thousands of ranks,
// searching many series for change points), where each caller had its own
// copy of goroutines, a channel and a WaitGroup.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls work once with every index below n, from at most GOMAXPROCS
// goroutines at once (never more than n), handing the indices out in
// increasing order, and returns once every call has returned. Work on one
// index must not depend on another's: a caller keeps each index's result
// and error in a slice of its own, and reads them in index order after
// Each returns, so the outcome is the same however the work was spread.
func Each(n int, work func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				work(i)
			}
		})
	}
	wg.Wait()
}
