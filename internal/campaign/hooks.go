package campaign

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/hookproc"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// HookError is a before_all hook that failed: the campaign ran no run.
type HookError struct{ Detail string }

func (e *HookError) Error() string { return e.Detail }

// campaignHooks runs the campaign's hook list kind (before_all,
// after_all) on this host, in the campaign's directory, each bounded by
// its deadline, its output appended to DIR/hooks/KIND-I.log (a resumed
// campaign runs them again). A before_all hook that fails ends the list
// there; after_all runs every hook. It says how each that failed ended.
func (c *execution) campaignHooks(ctx context.Context, r *Result, kind string) []string {
	s := c.Scenario
	var failed []string
	for i, h := range s.Hooks(kind) {
		d := s.TemplateData(scenarios.Place{Out: r.Out, Role: s.HookRole(kind), Rank: i})
		argv, env, err := campaignHookCommand(s, h, d)
		log := filepath.Join(r.Out, rundir.HookLog(kind, i))
		res := hookproc.Result{ExitCode: -1, Err: err}
		if err == nil {
			res = hookproc.RunGuarded(ctx, c.hookGuard(), argv, env, r.Out, log, s.HookDeadline(kind), time.Duration(s.Deadlines.KillGrace))
		}
		if res.OK() {
			continue
		}
		failed = append(failed, fmt.Sprintf("%s hook %d (%s) %s (its output: %s)", kind, i+1, strings.Join(h.Command, " "), res.Why(s.HookDeadline(kind)), log))
		if kind == scenarios.HookBeforeAll {
			break
		}
	}
	return failed
}

// hookGuard is the guard of the campaign's hooks: abbench hook-guard,
// which kills what a hook started when abbench run dies while it runs
// (a run's hooks have their controller's guard).
func (c *execution) hookGuard() *hookproc.Guard {
	return &hookproc.Guard{Program: c.Self, Args: []string{HookGuardVerb}}
}

// HookGuardVerb is the hidden verb of abbench that runs a hook's guard
// (hookproc.GuardMain).
const HookGuardVerb = "hook-guard"

// campaignHookCommand expands a campaign hook's arguments, and its
// environment: this host's, with the scenario's env over it.
func campaignHookCommand(s *scenarios.Scenario, h scenarios.Hook, d scenarios.TemplateData) (argv, env []string, err error) {
	argv = make([]string, len(h.Command))
	for j, a := range h.Command {
		if argv[j], err = scenarios.Expand(a, d); err != nil {
			return nil, nil, err
		}
	}
	env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		v, err := scenarios.Expand(s.Env[k], d)
		if err != nil {
			return nil, nil, err
		}
		env = append(env, k+"="+v)
	}
	return argv, env, nil
}

// beforeAll runs the before_all hooks before the campaign's first run;
// one that fails is a *HookError, and no run starts.
func (c *execution) beforeAll(ctx context.Context, r *Result) error {
	if failed := c.campaignHooks(ctx, r, scenarios.HookBeforeAll); len(failed) > 0 {
		return &HookError{Detail: failed[0] + ": no run was started"}
	}
	return nil
}

// afterAll runs the after_all hooks after the campaign's last run,
// however it ended (an interrupt included: ctx is not theirs), and keeps
// how each that failed ended in r.AfterAll.
func (c *execution) afterAll(r *Result) {
	r.AfterAll = c.campaignHooks(context.Background(), r, scenarios.HookAfterAll)
}
