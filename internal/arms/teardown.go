package arms

import (
	"context"
	"os"
	"time"

	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// teardown is the last phase of a run that measured: the checks that
// hold at its end, the teardown barrier, then every rank stopped and
// judged by how it stopped. clientsRan says the clients ended on their
// own (runClients judged them).
func (c *controller) teardown(ctx context.Context, clientsRan bool) {
	c.phase("teardown", "checking modes, then stopping every rank")
	tdCtx, cancel := context.WithTimeout(ctx, time.Duration(c.s.Deadlines.Teardown))
	defer cancel()
	c.checkAtTeardown()
	b := NewBarrier(c.coord, "teardown", "controller-0")
	if err := b.Arrive("controller-0"); err != nil {
		c.fail(reason.New(reason.WriteFailed, "arriving at the teardown barrier: %v", err))
	} else if err := b.Wait(tdCtx); err != nil {
		c.fail(reason.New(reason.DeadlineExceeded, "%v", err))
	}
	c.stopAll()
	c.judgeStops(clientsRan)
}

// judgeStops censors every rank that did not stop cleanly: killed after
// ignoring SIGTERM, or ended any other way than a clean shutdown.
func (c *controller) judgeStops(clientsRan bool) {
	for _, p := range c.procs {
		if p.client && clientsRan {
			continue // the client ended on its own; checked in runClients
		}
		if p.Killed() {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d ignored SIGTERM for %s and was killed", p.Role, p.Index, c.s.Deadlines.KillGrace).At(c.arm, p.Role, p.Index))
		} else if !p.cleanStop() {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d %s at teardown", p.Role, p.Index, p.howEnded()).At(c.arm, p.Role, p.Index))
		}
	}
}

// finish tears everything down, whatever happened (the teardown hooks
// included), and writes the status.
func (c *controller) finish() {
	if c.status.Phase != "teardown" {
		c.phase("teardown", "stopping every rank")
		if c.status.State != rundir.StateSucceeded {
			c.abortFile()
		}
		c.stopAll()
	}
	if err := os.RemoveAll(rundir.LaunchDirOf(c.coord)); err != nil {
		c.fail(reason.New(reason.WriteFailed, "removing the ranks' launch files (their argv and environment, mode 0600): %v: remove them by hand", err))
	}
	// Every rank has stopped: the teardown hooks run, whatever happened,
	// before the sweep (which stops what they left).
	c.teardownHooks()
	if c.status.State == rundir.StateSucceeded && len(c.status.Reasons) > 0 {
		c.status.State = rundir.StateFailed
	}
	// What escaped its process group (a daemon that called setsid) is
	// found by the token it inherited.
	found := survivorsSince(c.opts.Token, c.since)
	c.status.Swept = proctree.Kill(found)
	c.removeContainers()
	// Every rank is gone: nothing writes there any more. What a failed
	// removal leaves is a directory of the temporary directory named by
	// the token, which nothing reads.
	_ = os.RemoveAll(rundir.Scratch(c.opts.Token))
	// A process just sent SIGKILL is not gone at once: only one still alive
	// after a bounded wait survived. A daemon a rank left behind and the
	// sweep killed is recorded (swept_processes), not censored: nothing of
	// it outlives the run. None found, none to wait for: one pass over
	// /proc, not two.
	if len(found) > 0 {
		if left := survivorsAfter(c.opts.Token, c.since, sweepWait); len(left) > 0 {
			c.fail(reason.New(reason.UncleanShutdown, "processes %v of the run survived SIGKILL for %s", left, sweepWait))
			c.status.State = rundir.StateFailed
		}
	}
	c.status.Ended = time.Now().UTC()
	c.phase("done", c.status.State)
}

// stopAll stops every rank, each by its driver: its exit is expected
// from here on.
func (c *controller) stopAll() {
	for _, p := range c.procs {
		p.stopping = true
	}
	grace, limit := time.Duration(c.s.Deadlines.KillGrace), time.Duration(c.s.Deadlines.Teardown)
	for _, d := range c.drivers() {
		for _, r := range d.Stop(grace, limit) {
			c.fail(r)
		}
	}
}
