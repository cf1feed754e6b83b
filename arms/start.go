package arms

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/abbench/abbench/arms/rankwrap"
	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/reason"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// redactArgv is argv as records may show it.
func redactArgv(argv []string, secrets redact.Values) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = secrets.In(a)
	}
	return out
}

// data is what the templates of a rank of role see.
func (c *controller) data(role *scenarios.Role, rank int) scenarios.TemplateData {
	host, _ := os.Hostname()
	return c.s.TemplateData(scenarios.Place{Arm: c.arm, Token: c.opts.Token, Out: c.dir, Role: role, Rank: rank, Host: host, Ports: c.ports})
}

// startRole starts every rank of r: each a process of this host, or all
// of them as one srun step. It returns the names the ranks inherited from
// the controller's environment. Every rank started is in c.procs, so
// teardown stops it, whatever failed.
func (c *controller) startRole(r *scenarios.Role) ([]string, error) {
	preps := c.launchRanks(r)
	var (
		kept      []string
		stepRanks []*rankProc
		launches  []rundir.Launch
		failed    error
	)
	for rank, lp := range preps {
		for _, v := range lp.secrets {
			c.secrets.Add(v)
		}
		switch {
		case lp.err != nil:
			failed = cmp.Or(failed, lp.err)
			continue
		case c.remoteRanks():
			if err := lp.p.openLog(); err != nil {
				failed = cmp.Or(failed, err)
				continue
			}
			stepRanks = append(stepRanks, lp.p)
			launches = append(launches, rundir.Launch{Argv: lp.argv, Env: lp.env, Log: lp.p.log})
		case lp.startErr != nil:
			if failed == nil {
				c.fail(c.startFailure(r.Name, rank, lp.startErr))
				failed = errAbort
			}
			continue
		}
		kept = lp.kept
		c.procs = append(c.procs, lp.p) // every started rank, so teardown stops it
	}
	if failed != nil {
		return nil, failed
	}
	if len(stepRanks) > 0 && c.opts.Ranks == RanksKubernetes {
		if err := c.startJob(r, stepRanks, launches); err != nil {
			c.fail(reason.New(reason.LaunchFailed, "starting role %s as a Job of pods: %v", r.Name, err))
			return nil, errAbort
		}
	} else if len(stepRanks) > 0 {
		if err := c.startStep(r, stepRanks, launches); err != nil {
			c.fail(reason.New(reason.LaunchFailed, "starting role %s as an srun step: %v", r.Name, err))
			return nil, errAbort
		}
	}
	c.writeStatus()
	return kept, nil
}

// remoteRanks says whether ranks start elsewhere (srun steps, pods), each
// from its launch file, rather than as processes of this host.
func (c *controller) remoteRanks() bool {
	return c.opts.Ranks == RanksSrun || c.opts.Ranks == RanksKubernetes
}

// launchRanks prepares every rank of r and, locally, starts it. Ranks
// are prepared and started from every core: with thousands of ranks, one
// after another cost seconds (templates, environment, records, fork),
// while a shell starting the same processes took one.
func (c *controller) launchRanks(r *scenarios.Role) []rankLaunch {
	known := slices.Clone(c.secrets)
	preps := make([]rankLaunch, r.Ranks)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), r.Ranks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rank := range next {
				lp := c.prepareRank(r, rank, known)
				if lp.err == nil && !c.remoteRanks() {
					lp.startErr = c.startLocal(r, lp)
				}
				preps[rank] = lp
			}
		}()
	}
	for rank := range r.Ranks {
		next <- rank
	}
	close(next)
	wg.Wait()
	return preps
}

// rankLaunch is one rank prepared (and, locally, started) by startRole.
type rankLaunch struct {
	p         *rankProc
	argv, env []string
	kept      []string
	secrets   redact.Values // the values its templates read with env
	err       error         // preparing it failed
	startErr  error         // starting it failed
}

// prepareRank expands a rank's command, log and environment and records
// what it is given (secrets redacted by name and by value, known ones and
// those its own templates read).
func (c *controller) prepareRank(r *scenarios.Role, rank int, known redact.Values) (lp rankLaunch) {
	lp.secrets = slices.Clone(known)
	d := c.data(r, rank)
	inherited, selfDir, entrypoint := c.rankBase(r)
	command := r.Command
	lp.argv = make([]string, len(entrypoint), len(entrypoint)+len(command))
	copy(lp.argv, entrypoint)
	if r.OpenAI != nil { // abbench's own client: this very executable's load
		lp.argv, command = []string{c.self}, c.s.LoadArgs(r)
	}
	for _, a := range command {
		arg, err := scenarios.ExpandSecrets(a, d, &lp.secrets)
		if lp.err = err; err != nil {
			return lp
		}
		lp.argv = append(lp.argv, arg)
	}
	logRel, err := scenarios.Expand(r.Log, d)
	if err != nil {
		lp.err = err
		return lp
	}
	if lp.env, lp.kept, lp.err = rankEnv(inherited, selfDir, c.s, r, c.arm, d, &lp.secrets); lp.err != nil {
		return lp
	}
	// The wrapper records the command with every secret redacted: it
	// cannot tell which parts came through {{env}}, the controller can.
	if shown := redactArgv(lp.argv, lp.secrets); !slices.Equal(shown, lp.argv) {
		data, _ := json.Marshal(shown)
		lp.env = append(lp.env, rankwrap.EnvArgv+"="+string(data))
	}
	// abbench's own client redacts what it writes itself (a server may
	// quote back a header): it is told every value the templates read.
	if r.OpenAI != nil && len(lp.secrets) > 0 {
		data, _ := json.Marshal([]string(lp.secrets))
		lp.env = append(lp.env, redact.EnvValues+"="+string(data))
	}
	// What the rank is given, secrets redacted by name and by value, for
	// provenance: the unredacted environment is never written anywhere
	// but the 0600 launch file of an srun step, removed at teardown.
	envData, _ := json.MarshalIndent(lp.secrets.EnvIn(lp.env), "", "  ")
	if lp.err = atomicfile.Publish(rundir.EnvPath(c.coord, r.Name, rank), envData, 0o644); lp.err != nil {
		return lp
	}
	lp.p = &rankProc{role: r.Name, rank: rank, client: r.Client, log: filepath.Join(c.dir, logRel)}
	return lp
}
