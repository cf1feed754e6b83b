package arms

import (
	"context"
	"slices"
	"time"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/metricscrape"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// phases is the run's script: the setup hooks run, the roles start in waves as the roles they
// wait on get ready, the arm is checked before any client traffic, the
// measured phase runs, then teardown. An error ends the script at once;
// the reasons are in the status.
func (c *controller) phases(ctx context.Context) error {
	if len(c.s.Setup) > 0 {
		c.phase("setup", "running the setup hooks")
		if err := c.setupHooks(ctx); err != nil {
			return err
		}
	}
	c.phase("start", "starting roles")
	if err := c.hashBuilds(); err != nil {
		c.fail(reason.New(reason.LaunchFailed, "%v", err))
		return errAbort
	}
	clients, err := c.startServers(ctx)
	if err != nil {
		return err
	}
	c.phase("check", "checking registrations and modes before any client traffic")
	if err := c.checkArm("before the client"); err != nil {
		return err
	}
	if err := c.probeAttached(ctx, attachprobe.Before); err != nil {
		return err
	}
	if err := c.writeOffsets(); err != nil {
		return err
	}
	if err := c.measure(ctx, clients); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.teardown(ctx, len(clients) > 0)
	return nil
}

// startOrder is where the start waves stand.
type startOrder struct {
	started map[string]bool   // roles started
	clients []*scenarios.Role // client roles, held back until the arm is checked
	// inherited are the names the ranks inherited from the controller's
	// environment (the same for every rank: the base keys it has).
	inherited []string
}

// placed says whether r was started or held back already.
func (o *startOrder) placed(r *scenarios.Role) bool {
	return o.started[r.Name] || slices.Contains(o.clients, r)
}

// startServers starts every role but the clients, each once the roles it
// waits on are ready, and waits, within the ready deadline, for all of
// them to be ready. It returns the clients, which start after the checks.
func (c *controller) startServers(ctx context.Context) ([]*scenarios.Role, error) {
	readyCtx, cancel := context.WithTimeout(ctx, time.Duration(c.s.Deadlines.Ready))
	defer cancel()
	o := &startOrder{started: map[string]bool{}}
	for len(o.started)+len(o.clients) < len(c.s.Roles) {
		progressed, err := c.startWave(o)
		if err != nil {
			return nil, err
		}
		if !progressed {
			if err := c.waitReadyOnce(readyCtx, o.started); err != nil {
				return nil, err
			}
		}
	}
	c.status.Inherited = o.inherited
	for name := range o.started {
		if err := c.waitRoleReady(readyCtx, c.s.Role(name)); err != nil {
			return nil, err
		}
	}
	return o.clients, nil
}

// startWave starts every role not yet placed whose dependencies are ready,
// holding clients back. It reports whether it placed any.
func (c *controller) startWave(o *startOrder) (progressed bool, err error) {
	for i := range c.s.Roles {
		r := &c.s.Roles[i]
		if o.placed(r) || !c.allReady(c.deps(r)) {
			continue
		}
		if r.Client {
			o.clients = append(o.clients, r)
			progressed = true
			continue
		}
		kept, err := c.startRole(r)
		if err != nil {
			return progressed, err
		}
		if r.Container == nil {
			o.inherited = kept // a container rank inherits nothing of the host's
		}
		o.started[r.Name] = true
		progressed = true
	}
	return progressed, nil
}

// deps are the roles r waits on before it starts: those it names in
// after, and with after_ready every role that is not after_ready itself.
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

// measure is the measured phase: the clients run, then the logs settle;
// the GPUs are sampled from the clients' start to their end, and the
// servers' metrics scraped before the clients and after the drain.
// A scenario without clients has its ranks run the benchmark themselves
// and exit.
func (c *controller) measure(ctx context.Context, clients []*scenarios.Role) error {
	if len(clients) == 0 {
		sampling := c.sampleGPUs()
		err := c.waitAllExit(ctx)
		c.stopSampling(sampling)
		return err
	}
	c.scrapeMetrics(ctx, metricscrape.Before)
	sampling := c.sampleGPUs()
	err := c.runClients(ctx, clients)
	c.stopSampling(sampling)
	if err != nil {
		return err
	}
	c.phase("drain", "waiting for logs to settle")
	c.drain(ctx)
	c.scrapeMetrics(ctx, metricscrape.After)
	_ = c.probeAttached(ctx, attachprobe.After) // the reasons are in the status; teardown runs all the same
	return nil
}
