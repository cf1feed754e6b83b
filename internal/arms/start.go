package arms

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/parallel"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
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
	return c.s.TemplateData(scenarios.Place{Arm: c.arm, Token: c.opts.Token, Out: c.dir, Role: role, Rank: rank, Host: host, Ports: c.ports, Attached: c.attached})
}

// startRole prepares every rank of r and starts them with the role's
// driver (driverOf). It returns the names the ranks inherited from the
// controller's environment. Every rank started is in c.procs, so
// teardown stops it, whatever failed.
func (c *controller) startRole(r *scenarios.Role) ([]string, error) {
	d := c.driverOf(r)
	preps := c.prepareRanks(r)
	var (
		kept   []string
		batch  []*rankProc
		rs     []*ranks.Rank
		failed error
	)
	for _, lp := range preps {
		for _, v := range lp.secrets {
			c.secrets.Add(v)
		}
		if lp.err != nil {
			failed = cmp.Or(failed, lp.err)
			continue
		}
		kept = lp.kept
		batch, rs = append(batch, lp.p), append(rs, lp.p.Rank)
	}
	if failed != nil {
		return nil, failed
	}
	err := d.Start(r, rs)
	for _, p := range batch {
		if p.StartErr != nil {
			if failed == nil {
				c.fail(c.startFailure(r.Name, p.Index, p.StartErr))
				failed = errAbort
			}
			continue
		}
		c.procs = append(c.procs, p) // every started rank, so teardown stops it
	}
	if err != nil {
		c.fail(reason.New(reason.LaunchFailed, "starting role %s %v", r.Name, err))
		return nil, errAbort
	}
	if failed != nil {
		return nil, failed
	}
	c.writeStatus()
	return kept, nil
}

// prepareRanks prepares every rank of r, from every core: with thousands
// of ranks, one after another cost seconds (templates, environment,
// records).
func (c *controller) prepareRanks(r *scenarios.Role) []rankLaunch {
	known := slices.Clone(c.secrets)
	preps := make([]rankLaunch, r.Ranks)
	parallel.Each(r.Ranks, func(rank int) { preps[rank] = c.prepareRank(r, rank, known) })
	return preps
}

// rankLaunch is one rank prepared by startRole.
type rankLaunch struct {
	p       *rankProc
	kept    []string
	secrets redact.Values // the values its templates read with env
	err     error         // preparing it failed
}

// prepareRank expands a rank's command, log and environment and records
// what it is given (secrets redacted by name and by value, known ones and
// those its own templates read).
func (c *controller) prepareRank(r *scenarios.Role, rank int, known redact.Values) (lp rankLaunch) {
	var argv, env []string
	lp.secrets = slices.Clone(known)
	d := c.data(r, rank)
	inherited, selfDir, entrypoint := c.rankBase(r)
	command := r.Command
	argv = make([]string, len(entrypoint), len(entrypoint)+len(command))
	copy(argv, entrypoint)
	if r.OpenAI != nil { // abbench's own client: this very executable's load
		argv, command = []string{c.self}, c.s.LoadArgs(r)
	}
	for _, a := range command {
		arg, err := scenarios.ExpandSecrets(a, d, &lp.secrets)
		if lp.err = err; err != nil {
			return lp
		}
		argv = append(argv, arg)
	}
	logRel, err := scenarios.Expand(r.Log, d)
	if err != nil {
		lp.err = err
		return lp
	}
	if env, lp.kept, lp.err = rankEnv(inherited, selfDir, c.s, r, c.arm, d, &lp.secrets); lp.err != nil {
		return lp
	}
	// The wrapper records the command with every secret redacted: it
	// cannot tell which parts came through {{env}}, the controller can.
	if shown := redactArgv(argv, lp.secrets); !slices.Equal(shown, argv) {
		data, _ := json.Marshal(shown)
		env = append(env, rankwrap.EnvArgv+"="+string(data))
	}
	// abbench's own client redacts what it writes itself (a server may
	// quote back a header): it is told every value the templates read.
	if r.OpenAI != nil && len(lp.secrets) > 0 {
		data, _ := json.Marshal([]string(lp.secrets))
		env = append(env, redact.EnvValues+"="+string(data))
	}
	// What the rank is given, secrets redacted by name and by value, for
	// provenance: the unredacted environment is never written anywhere
	// but the 0600 launch file of an srun step, removed at teardown.
	envData, _ := json.MarshalIndent(lp.secrets.EnvIn(env), "", "  ")
	if lp.err = atomicfile.Publish(rundir.EnvPath(c.coord, r.Name, rank), envData, 0o644); lp.err != nil {
		return lp
	}
	p := newRankProc(r.Name, rank, r.Client, filepath.Join(c.dir, logRel), c.exited)
	p.Argv, p.Env = argv, env
	lp.p = p
	return lp
}
