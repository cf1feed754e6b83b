package arms

import (
	"context"
	"net"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// allReady says whether every one of roles is ready.
func (c *controller) allReady(roles []string) bool {
	for _, r := range roles {
		if !c.ready[r] {
			return false
		}
	}
	return true
}

// checkExits aborts on any rank that ended while it should be running.
func (c *controller) checkExits() error {
	for {
		select {
		case p := <-c.exited:
			if p.stopping || p.client {
				continue
			}
			c.fail(reason.New(reason.RankExited, "%s rank %d %s during phase %s; last log line: %s",
				p.Role, p.Index, p.howEnded(), c.status.Phase, lastLine(p.Log)).At(c.arm, p.Role, p.Index))
			return errAbort
		default:
			return nil
		}
	}
}

// waitReadyOnce waits a little for any started role to become ready.
func (c *controller) waitReadyOnce(ctx context.Context, started map[string]bool) error {
	for name := range started {
		if !c.ready[name] && c.roleReady(c.s.Role(name)) {
			c.ready[name] = true
			return nil
		}
	}
	return c.pauseForReady(ctx)
}

// pauseForReady is the pause between readiness polls: a rank that exited
// aborts the run, and so does the ready deadline.
func (c *controller) pauseForReady(ctx context.Context) error {
	if err := c.checkExits(); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return c.readyTimeout(ctx)
	case <-time.After(10 * time.Millisecond):
	}
	return nil
}

// readyTimeout ends a wait for readiness that ran out: an interrupt as
// such, the ready deadline as its reasons, naming every rank not ready.
func (c *controller) readyTimeout(ctx context.Context) error {
	if ctx.Err() == context.Canceled {
		return ctx.Err()
	}
	var waiting []string
	for _, p := range c.procs {
		if !c.ready[p.Role] && !c.rankReady(c.s.Role(p.Role), p) {
			waiting = append(waiting, p.Name())
		}
	}
	// A wrong arm often is why ranks never got ready (mismatched ranks can
	// hang each other): say so first, from what the ranks registered and logged.
	when := "while waiting for readiness"
	c.status.Reasons = append(c.status.Reasons, c.checkRegistrations(when, false)...)
	if err := c.checkModes(when); err != nil {
		c.fail(reasonOf(err))
	}
	c.fail(reason.New(reason.DeadlineExceeded, "not ready within the ready deadline %s: %s", c.s.Deadlines.Ready, strings.Join(waiting, ", ")))
	return errAbort
}

// waitRoleReady waits until every rank of r is ready.
func (c *controller) waitRoleReady(ctx context.Context, r *scenarios.Role) error {
	for !c.ready[r.Name] {
		if c.roleReady(r) {
			c.ready[r.Name] = true
			break
		}
		if err := c.pauseForReady(ctx); err != nil {
			return err
		}
	}
	return nil
}

// roleReady says whether every started rank of r passes its probe.
func (c *controller) roleReady(r *scenarios.Role) bool {
	for _, p := range c.procs {
		if p.Role == r.Name && !c.rankReady(r, p) {
			return false
		}
	}
	return true
}

// rankReady applies the role's probe; without one, a registered rank is ready.
func (c *controller) rankReady(r *scenarios.Role, p *rankProc) bool {
	if _, ok, _ := rundir.ReadRegistration(c.coord, p.Role, p.Index); !ok {
		return false
	}
	switch {
	case r.Ready == nil:
		return true
	case r.Ready.Log != "":
		if p.ready == nil {
			p.ready = newFollower(p.Log, p.Offset, c.pattern(r.Ready.Log))
		}
		return p.ready.poll(c.followBuf())
	default:
		port, err := scenarios.Expand(r.Ready.Port, c.data(r, p.Index))
		if err != nil {
			return false
		}
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), 100*time.Millisecond)
		if err != nil {
			return false
		}
		_ = conn.Close() // a probe: it sent nothing that a close could lose
		return true
	}
}
