package campaign

import (
	"context"
	"fmt"
	"time"

	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// blockSize is the number of runs in a block: one run of every arm, or
// an A/A pair of a calibration. It is the block CampaignRef.Block counts
// and the statistics pair within.
func (c *Config) blockSize() int {
	if c.Calibrate != "" {
		return 2
	}
	return len(c.Scenario.ArmOrder)
}

// groups are the runs Execute makes together, in plan order: each run on
// its own, or with Concurrent the runs of each block (blockSize runs in
// plan order: in abba order a pair A B or B A, interleaved A B, a
// warm-up block like the others).
func (c *Config) groups(n int) [][]int {
	size := 1
	if c.Concurrent {
		size = c.blockSize()
	}
	var gs [][]int
	for i := 0; i < n; i += size {
		var g []int
		for j := i; j < min(i+size, n); j++ {
			g = append(g, j)
		}
		gs = append(gs, g)
	}
	return gs
}

// validateConcurrent refuses Concurrent where a block's runs cannot run
// at the same time without one slowing the other, or where the plan has
// no blocks to run together.
func (c *Config) validateConcurrent() error {
	if !c.Concurrent {
		return nil
	}
	switch {
	case c.Stages:
		return &field.Error{Field: "Concurrent", With: "Stages", Problem: "the stages of a CI plan run as the CI system starts them"}
	case c.Order == OrderRandom:
		return &field.Error{Field: "Concurrent", Needs: []field.Setting{{Field: "Order", Value: OrderABBA}}, Problem: "or interleaved (a random order has no blocks: two runs of one arm may come together)"}
	case c.PairNodes:
		return &field.Error{Field: "Concurrent", With: "PairNodes", Problem: "a block's runs start together, each on nodes of its own, so there is no first run whose nodes the others could take"}
	case c.Launcher == "local" && !c.Scenario.Launcher.Local.ConcurrentSafe:
		return &field.Error{Field: "Concurrent", Value: "with the local launcher", Problem: fmt.Sprintf(
			"runs a block's runs on this one machine, where they share its CPUs, memory, disk and network and each slows the other: "+
				"run under Slurm (each on nodes of its own), or say in %s that the arms share nothing here (launcher: {local: {concurrent_safe: true}})", c.Scenario.File)}
	}
	return nil
}

// started is a run of a group whose allocation started.
type started struct {
	i  int
	lr launcher.Run
}

// ended is how a started run ended.
type ended struct {
	i           int
	res         rundir.Outcome
	interrupted bool
}

// runGroup makes the runs of group that are left: it starts each (the
// runs of a block one right after the other), waits for all of them at
// once, and records each one's end in plan.json as it comes. A run that
// could not be started at all tears down the group's runs started before
// it, which are recorded as cancelled, and is the error.
func (c *execution) runGroup(ctx context.Context, l launcher.Launcher, ranks string, r *Result, group []int, runDeadline time.Duration) error {
	var runs []started
	var startErr error
	for _, i := range group {
		if !r.toRun(i) {
			continue
		}
		lr, err := c.start(ctx, l, ranks, r, i)
		if err != nil {
			startErr = err
			break
		}
		runs = append(runs, started{i, lr})
	}
	ends := make(chan ended, len(runs))
	for _, s := range runs {
		go func() {
			if startErr != nil { // the group is not whole: none of it runs
				ends <- ended{s.i, c.stop(s.lr, fmt.Errorf("another run of its block could not be started: %v", startErr)), false}
				return
			}
			res, interrupted := c.await(ctx, s.lr, r.Runs[s.i].Planned, runDeadline)
			ends <- ended{s.i, res, interrupted}
		}()
	}
	for range runs {
		e := <-ends
		c.finish(r, e)
		pr := r.Runs[e.i].Planned
		r.record(fmt.Sprintf("after run %d (arm %s) ended", pr.Index, pr.Arm))
	}
	return startErr
}

// stop cancels a run, for why when it is not an interrupt (nil), and
// waits for it to end (Cancel is bounded).
func (c *execution) stop(lr launcher.Run, why error) rundir.Outcome {
	cerr := lr.Cancel()
	res, _ := lr.Wait(context.Background())
	if why != nil {
		res.Detail = fmt.Sprintf("cancelled: %v; %s", why, res.Detail)
	}
	if cerr != nil {
		res.Detail = fmt.Sprintf("%s; cancelling: %v", res.Detail, cerr)
	}
	return res
}
