package arms

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// unitScenario has a role that takes the arm env (two ranks, a log
// probe, the mode line), one that does not, and a client.
const unitScenario = `name: unit
arms:
  a: {env: {MODE: "async"}}
  b: {env: {MODE: "block"}}
baseline: a
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, ranks: 2, arm_env: true, ready: {log: 'up'}, command: [sh, -c, 'true']}
  - {name: helper, command: [sh, -c, 'true']}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'true']}
evidence:
  mode: {role: server, pattern: 'mode rank=(?P<rank>\d+) MODE=(?P<MODE>\S+)'}
deadlines: {ready: 10s, client: 10s, drain: 1s, teardown: 5s, kill_grace: 1s}
`

// unitController is a controller of arm a of the scenario yaml with its
// attempt's directories made and no rank started: for the pieces of a
// run that work alone.
func unitController(t *testing.T, yaml string) *controller {
	t.Helper()
	c := bareController(t, yaml)
	if err := c.makeRunDir(); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{rundir.RanksDir, rundir.EnvDir} {
		if err := os.MkdirAll(filepath.Join(c.coord, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.ports = scenarios.NewPorts(filepath.Join(c.coord, rundir.PortsFile))
	c.status = &rundir.Status{Arm: c.arm, Token: c.opts.Token, Dir: c.dir, State: rundir.StateRunning, Reasons: []reason.Reason{}}
	return c
}

// bareController is a controller of arm a of the scenario yaml, its
// directories not made yet.
func bareController(t *testing.T, yaml string) *controller {
	t.Helper()
	c, err := newController(loadScenario(t, yaml), "a", Options{Out: t.TempDir(), Self: os.Args[0], Inherited: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// register writes a rank's registration as the rank wrapper would; each
// of armEnv's values is the key's value, or nil for a key not received.
func register(t *testing.T, c *controller, role string, rank int, armEnv map[string]*string) {
	t.Helper()
	reg := rundir.Registration{Schema: rundir.RegistrationSchema, Role: role, Rank: rank, Token: c.opts.Token, ArmEnv: armEnv}
	if err := rundir.WriteJSON(rundir.RegistrationPath(c.coord, role, rank), reg); err != nil {
		t.Fatal(err)
	}
}

// addRank gives the controller a rank of role whose log held before
// when the rank started (a previous attempt's lines, out of scope).
func addRank(t *testing.T, c *controller, role string, rank int, before string) *rankProc {
	t.Helper()
	p := newRankProc(role, rank, false, filepath.Join(c.dir, rundir.RankName(role, rank)+".log"), nil)
	if err := os.WriteFile(p.Log, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.openLog(); err != nil {
		t.Fatal(err)
	}
	c.procs = append(c.procs, p)
	return p
}

// logs appends text to the rank's log.
func logs(t *testing.T, p *rankProc, text string) {
	t.Helper()
	if err := appendLog(p, text); err != nil {
		t.Fatal(err)
	}
}

func appendLog(p *rankProc, text string) error {
	f, err := os.OpenFile(p.Log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func ptr(s string) *string { return &s }

// reasonsByRank maps role-rank (or "" for a reason of the run) to the
// codes of its reasons.
func reasonsByRank(rs []reason.Reason) map[string][]reason.Code {
	out := map[string][]reason.Code{}
	for _, r := range rs {
		key := ""
		if r.Role != "" {
			key = fmt.Sprintf("%s-%d", r.Role, *r.Rank)
		}
		out[key] = append(out[key], r.Code)
	}
	return out
}

// TestOpenAIRoleRunsThisExecutablesLoad: an openai role's rank is this
// very executable's load, given the workload and the run's own files.
func TestOpenAIRoleRunsThisExecutablesLoad(t *testing.T) {
	c := unitController(t, strings.Replace(unitScenario, `command: [sh, -c, 'true']}
evidence:`, `openai: {url: 'http://127.0.0.1:{{.Port "http"}}', model: m}}
evidence:`, 1))
	role := c.s.OpenAIRole()
	lp := c.prepareRank(role, 0, nil)
	if lp.err != nil {
		t.Fatal(lp.err)
	}
	got := strings.Join(lp.p.Argv, " ")
	for _, want := range []string{c.self + " load --url http://127.0.0.1:", " --model m ", " --prompts " + c.s.TemplateData(scenarios.Place{}).Workload.Prompts + " ",
		" --out " + c.dir + "/" + scenarios.OpenAIResult, " --records " + c.dir + "/" + scenarios.OpenAISent, " --timeout 10s "} {
		if !strings.Contains(got, want) {
			t.Errorf("argv %q lacks %q", got, want)
		}
	}
}
