package arms

import (
	"context"
	"time"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// runClients starts the clients and waits, within the client deadline,
// for each to exit 0; any other rank that ends meanwhile aborts the run.
func (c *controller) runClients(ctx context.Context, clients []*scenarios.Role) error {
	c.phase("client", "running the client")
	for _, r := range clients {
		if _, err := c.startRole(r); err != nil {
			return err
		}
	}
	clientCtx, cancel := context.WithTimeout(ctx, time.Duration(c.s.Deadlines.Client))
	defer cancel()
	for _, p := range c.procs {
		if !p.client {
			continue
		}
		for !p.exited() {
			if err := c.checkExits(); err != nil {
				return err
			}
			select {
			case <-clientCtx.Done():
				if ctx.Err() != nil {
					return ctx.Err()
				}
				c.fail(reason.New(reason.DeadlineExceeded, "client %s rank %d did not finish within the client deadline %s", p.Role, p.Index, c.s.Deadlines.Client).At(c.arm, p.Role, p.Index))
				return errAbort
			case <-p.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
		if p.exitCode() != 0 {
			c.fail(reason.New(reason.RankExited, "client %s rank %d %s; last log line: %s", p.Role, p.Index, p.howEnded(), lastLine(p.Log)).At(c.arm, p.Role, p.Index))
			return errAbort
		}
	}
	return c.checkExits()
}

// waitAllExit is the measured phase of a scenario without a client: the
// ranks run the benchmark themselves and exit.
func (c *controller) waitAllExit(ctx context.Context) error {
	c.phase("measure", "waiting for the ranks to finish")
	deadline := time.After(time.Duration(c.s.Deadlines.Client))
	for _, p := range c.procs {
		p.client = true // their exit is the end of the measurement, not a failure
	}
	for _, p := range c.procs {
		select {
		case <-p.Done():
			if p.exitCode() != 0 {
				c.fail(reason.New(reason.RankExited, "%s rank %d %s; last log line: %s", p.Role, p.Index, p.howEnded(), lastLine(p.Log)).At(c.arm, p.Role, p.Index))
				return errAbort
			}
		case <-deadline:
			c.fail(reason.New(reason.DeadlineExceeded, "%s rank %d did not finish within the client deadline %s", p.Role, p.Index, c.s.Deadlines.Client).At(c.arm, p.Role, p.Index))
			return errAbort
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
