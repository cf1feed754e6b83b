package campaign

import (
	"slices"

	"github.com/abbench/abbench/internal/rundir"
)

// Together is how the runs of one block of a concurrent campaign ran,
// as their own files say: whether they ran at the same time (every run's
// status.json started before every other's ended) and, under Slurm, the
// nodes more than one of them registered from.
type Together struct {
	Runs []int // plan indexes
	// Overlapped is true when every run of the block overlapped every
	// other in time; a block resumed with one run kept and the other run
	// again, or one whose later job was queued until the first ended,
	// did not.
	Overlapped bool
	// Shared are nodes that ranks of two runs of the block registered
	// from (Slurm only: locally every run is on this host).
	Shared []string
}

// together says how the runs of each block of a concurrent campaign ran,
// for the blocks all of whose runs left a status with its end.
func (c *execution) together(r *Result) []Together {
	var out []Together
	for _, group := range c.groups(len(r.Runs)) {
		t, ok := blockTogether(r, group, c.Launcher == "slurm")
		if ok {
			out = append(out, t)
		}
	}
	return out
}

func blockTogether(r *Result, group []int, nodes bool) (Together, bool) {
	t := Together{Overlapped: len(group) > 1}
	seen := map[string]int{}
	for _, i := range group {
		st := r.Runs[i].Status
		if st == nil || st.Started.IsZero() || st.Ended.IsZero() {
			return Together{}, false
		}
		t.Runs = append(t.Runs, r.Runs[i].Planned.Index)
		for _, j := range group {
			o := r.Runs[j].Status
			if j != i && o != nil && !st.Started.Before(o.Ended) {
				t.Overlapped = false // run i started once run j had ended (or has no end)
			}
		}
		if !nodes {
			continue
		}
		for _, n := range rundir.Nodes(st.Dir) {
			if seen[n]++; seen[n] == 2 {
				t.Shared = append(t.Shared, n)
			}
		}
	}
	slices.Sort(t.Shared)
	return t, true
}
