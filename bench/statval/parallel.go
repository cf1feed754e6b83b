package main

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/abbench/abbench/internal/decide"
)

// validateAll validates every noise model (decide.Models, model i from
// seed 1000i) on as many cores as GOMAXPROCS gives, each model one unit
// of work: the rows are the same, in model order, whatever the cores.
func validateAll(designs []decide.Design, rule decide.Rule, campaigns int) [][]decide.Row {
	out := make([][]decide.Row, len(decide.Models))
	each(len(decide.Models), func(i int) {
		out[i] = decide.Validate(decide.Models[i], designs, rule, campaigns, uint64(1000*i))
	})
	return out
}

// each runs f(0) to f(n-1) on GOMAXPROCS goroutines and waits for all.
func each(n int, f func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}
