package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/abbench/abbench/internal/decide"
)

// validateAll validates the noise models picked (indices into
// decide.Models, model i from seed 1000i whatever else is picked, so a
// subset's rows are the full table's) on as many cores as GOMAXPROCS
// gives, each model one unit of work: the rows are the same, in model
// order, whatever the cores.
func validateAll(picked []int, designs []decide.Design, rule decide.Rule, campaigns int) [][]decide.Row {
	out := make([][]decide.Row, len(picked))
	each(len(picked), func(j int) {
		i := picked[j]
		out[j] = decide.Validate(decide.Models[i], designs, rule, campaigns, uint64(1000*i))
	})
	return out
}

// pickModels are the indices of decide.Models whose names hold one of
// the comma-separated words of list (case-insensitive), every model for
// an empty list; an error names a word no model holds.
func pickModels(list string) ([]int, error) {
	var picked []int
	words := strings.Split(strings.ToLower(list), ",")
	found := make([]bool, len(words))
	for i, m := range decide.Models {
		name := strings.ToLower(m.Name)
		take := list == ""
		for w, word := range words {
			if word != "" && strings.Contains(name, word) {
				take, found[w] = true, true
			}
		}
		if take {
			picked = append(picked, i)
		}
	}
	for w, word := range words {
		if list != "" && !found[w] {
			return nil, fmt.Errorf("-models %s: no noise model's name holds %q", list, word)
		}
	}
	return picked, nil
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
