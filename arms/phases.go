package arms

import (
	"context"
	"slices"
	"time"

	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/scenarios"
)

// startOrder lists roles in start waves: a role starts once the roles it
// waits on are ready. Clients come last.
func (c *controller) deps(r *scenarios.Role) []string {
	deps := slices.Clone(r.After)
	if r.AfterReady {
		for _, o := range c.s.Roles {
			if !o.AfterReady && o.Name != r.Name {
				deps = append(deps, o.Name)
			}
		}
	}
	return deps
}

func (c *controller) phases(ctx context.Context) error {
	s := c.s
	c.phase("start", "starting roles")
	if err := c.hashBuilds(); err != nil {
		c.fail(reason.New(reason.LaunchFailed, "%v", err))
		return errAbort
	}
	var inherited []string
	var clients []*scenarios.Role
	readyCtx, cancel := context.WithTimeout(ctx, time.Duration(s.Deadlines.Ready))
	defer cancel()
	started := map[string]bool{}
	for len(started)+len(clients) < len(s.Roles) {
		progressed := false
		for i := range s.Roles {
			r := &s.Roles[i]
			if started[r.Name] || slices.Contains(clients, r) {
				continue
			}
			if !c.allReady(c.deps(r)) {
				continue
			}
			if r.Client {
				clients = append(clients, r)
				progressed = true
				continue
			}
			kept, err := c.startRole(r)
			if err != nil {
				return err
			}
			inherited = kept
			started[r.Name] = true
			progressed = true
		}
		if !progressed {
			if err := c.waitReadyOnce(readyCtx, started); err != nil {
				return err
			}
		}
	}
	c.status.Inherited = inherited
	for name := range started {
		if err := c.waitRoleReady(readyCtx, s.Role(name)); err != nil {
			return err
		}
	}
	c.phase("check", "checking registrations and modes before any client traffic")
	if err := c.checkArm("before the client"); err != nil {
		return err
	}
	if err := c.writeOffsets(); err != nil {
		return err
	}
	if len(clients) > 0 {
		if err := c.runClients(ctx, clients); err != nil {
			return err
		}
		c.phase("drain", "waiting for logs to settle")
		c.drain(ctx)
	} else {
		if err := c.waitAllExit(ctx); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.phase("teardown", "checking modes, then stopping every rank")
	tdCtx, cancel2 := context.WithTimeout(ctx, time.Duration(s.Deadlines.Teardown))
	defer cancel2()
	if err := c.checkModes("at teardown"); err != nil {
		c.fail(reasonOf(err))
	}
	c.status.Reasons = append(c.status.Reasons, c.checkRegistrations("by the client", true)...)
	if len(c.status.Builds) > 0 && !c.ranBuild {
		c.fail(reason.New(reason.BuildMismatch, "no rank ran arm %s's build %s: start the system under test as {{.Build}} in its role's command", c.arm, c.ownBuild().Binary))
	}
	b := NewBarrier(c.coord, "teardown", "controller-0")
	if err := b.Arrive("controller-0"); err != nil {
		c.fail(reason.New(reason.WriteFailed, "arriving at the teardown barrier: %v", err))
	} else if err := b.Wait(tdCtx); err != nil {
		c.fail(reason.New(reason.DeadlineExceeded, "%v", err))
	}
	c.stopAll()
	for _, p := range c.procs {
		if p.client && len(clients) > 0 {
			continue // the client ended on its own; checked in runClients
		}
		if p.killed {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d ignored SIGTERM for %s and was killed", p.role, p.rank, s.Deadlines.KillGrace).At(c.arm, p.role, p.rank))
		} else if !p.cleanStop() {
			c.fail(reason.New(reason.UncleanShutdown, "%s rank %d %s at teardown", p.role, p.rank, p.howEnded()).At(c.arm, p.role, p.rank))
		}
	}
	return nil
}
