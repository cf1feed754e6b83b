package arms

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/hookproc"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// setupHooks runs the scenario's setup hooks, in order, before any role
// starts: the first that fails censors the run (setup-failed) and none
// after it runs, nor any role. ctx ending stops the hook in progress.
func (c *controller) setupHooks(ctx context.Context) error {
	for i, h := range c.s.Setup {
		_, why := c.runHook(ctx, scenarios.HookSetup, i, h)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if why != "" {
			c.fail(reason.New(reason.SetupFailed, "%s; no role was started", why).At(c.arm, scenarios.HookSetup, i))
			return errAbort
		}
	}
	return nil
}

// teardownHooks runs every teardown hook, in order, once every rank has
// stopped, whatever happened before: after a failure, and after the
// controller was told to stop (SIGTERM), each bounded by its own
// deadline. Each that fails censors the run (teardown-failed).
func (c *controller) teardownHooks() {
	for i, h := range c.s.Teardown {
		if _, why := c.runHook(context.Background(), scenarios.HookTeardown, i, h); why != "" {
			c.fail(reason.New(reason.TeardownFailed, "%s", why).At(c.arm, scenarios.HookTeardown, i))
		}
	}
}

// runHook runs hook i of list kind as a role's rank i runs (its
// templates, its environment, the arm's with arm_env), its output in
// the attempt's hooks/KIND-I.log, and records it in the status. why says
// how it failed ("" when it exited 0).
func (c *controller) runHook(ctx context.Context, kind string, i int, h scenarios.Hook) (hookproc.Result, string) {
	role := c.s.HookRole(kind)
	role.ArmEnv = h.ArmEnv
	d := c.data(role, i)
	secrets := slices.Clone(c.secrets)
	argv, env, err := c.hookCommand(h, role, d, &secrets)
	for _, v := range secrets {
		c.secrets.Add(v)
	}
	deadline := c.s.HookDeadline(kind)
	rel := rundir.HookLog(kind, i)
	log := filepath.Join(c.dir, rel)
	var res hookproc.Result
	if err != nil {
		res = hookproc.Result{ExitCode: -1, Err: err, Started: time.Now(), Ended: time.Now()}
	} else {
		res = hookproc.Run(ctx, argv, env, c.dir, log, deadline, time.Duration(c.s.Deadlines.KillGrace))
	}
	c.status.Hooks = append(c.status.Hooks, rundir.HookStatus{Kind: kind, Index: i, Command: redactArgv(argv, secrets), Log: rel,
		Started: res.Started.UTC(), Ended: res.Ended.UTC(), ExitCode: res.ExitCode, TimedOut: res.TimedOut})
	c.writeStatus()
	if res.OK() {
		return res, ""
	}
	return res, fmt.Sprintf("%s hook %d (%s) %s; last line of its output: %s", kind, i+1, strings.Join(redactArgv(argv, secrets), " "), res.Why(deadline), lastLine(log))
}

// hookCommand expands a hook's arguments and environment, adding to
// secrets the values its templates read.
func (c *controller) hookCommand(h scenarios.Hook, role *scenarios.Role, d scenarios.TemplateData, secrets *redact.Values) (argv, env []string, err error) {
	argv = make([]string, len(h.Command))
	for j, a := range h.Command {
		if argv[j], err = scenarios.ExpandSecrets(a, d, secrets); err != nil {
			return nil, nil, err
		}
	}
	env, _, err = rankEnv(c.opts.Inherited, filepath.Dir(c.self), c.s, role, c.arm, d, secrets)
	return argv, env, err
}
