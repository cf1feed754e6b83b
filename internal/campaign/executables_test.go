package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// interpreted is a scenario whose server is a program found on the PATH
// running a script of the scenario's directory, and which writes an
// output file at an absolute path (out), as a system under test may.
const interpreted = `name: interp
arms:
  a: {env: {MODE: "1"}}
  b: {env: {MODE: "0"}}
baseline: b
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, arm_env: true, command: [sut-interp, "{{.Dir}}/serve.py", --log, "{{.Out}}/server.log", --out, OUT], ready: {log: up}}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'echo "tps=1" > "{{.Out}}/r.txt"']}
evidence:
  throughput: {file: r.txt, format: regex, metric: tps, pattern: 'tps=(?P<tps>[0-9.]+)'}
acceptance:
  - {throughput: valid}
`

// sut is a campaign of the interpreted scenario begun with its
// interpreter in a directory on the PATH and abbench in another.
type sut struct {
	cfg                        *Config
	interp, script, out, early string
}

func beginInterpreted(t *testing.T, order ...string) *sut {
	t.Helper()
	dir, bin, self := t.TempDir(), t.TempDir(), t.TempDir()
	x := &sut{interp: filepath.Join(bin, "sut-interp"), script: filepath.Join(dir, "serve.py"), out: filepath.Join(t.TempDir(), "written-by-runs.txt"),
		early: filepath.Join(self, "sut-interp")}
	for path, content := range map[string]string{x.interp: "interpreter v1", x.script: "print('v1')", filepath.Join(dir, "prompts.jsonl"): "[1,2]\n",
		filepath.Join(self, "abbench"): "controller v1", filepath.Join(dir, "s.yaml"): strings.Replace(interpreted, "OUT", x.out, 1)} {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	s, err := scenarios.Load(filepath.Join(dir, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	x.cfg = &Config{Scenario: s, Launcher: "local", Repeat: 2, Order: append(order, OrderABBA)[0], Seed: 5, Self: filepath.Join(self, "abbench"),
		Out: filepath.Join(t.TempDir(), "camp"), Options: map[string]string{"blocks": "2", "order_seed": "5"}}
	if _, err := plan(x.cfg); err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *sut) reopen(t *testing.T) error {
	t.Helper()
	_, err := x.reopenNew(t, false)
	return err
}

func (x *sut) reopenNew(t *testing.T, newBlocks bool) (*Result, error) {
	t.Helper()
	s, err := scenarios.Load(x.cfg.Scenario.File)
	if err != nil {
		t.Fatal(err)
	}
	cfg := *x.cfg
	cfg.Scenario, cfg.NewBlocks = s, newBlocks
	return Reopen(&cfg)
}

// A resume after the system under test changed (the program a role runs,
// same path and other content; the script its interpreter runs; another
// file first on the rank's PATH, where abbench's own directory comes
// first) is refused, naming the role, the path and both digests: its runs
// before the change would be paired with runs after it. A file the runs
// write at an absolute path that was not there when the campaign began is
// not held, and the same system is resumed. (Before, a resume held
// abbench, abbench-rank and the builds alone and took every change here.)
func TestReopenHoldsTheSystemUnderTest(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(x *sut) error
		want   []string
	}{
		{"the program's content", func(x *sut) error { return os.WriteFile(x.interp, []byte("interpreter v2"), 0o755) },
			[]string{"role server runs sut-interp (INTERP): its content changed (sha256 3883dcbc1f6876054f580e462c6489e21b7103f4626955f21ed55e528d3d31c3 of 14 bytes, now 99af8c4aaf35456b2c65b0ca637d4e6108dec58fed86cbd07f1d0cd56ad3780f of 14 bytes", "its runs so far ran another system under test"}},
		{"the script's content", func(x *sut) error { return os.WriteFile(x.script, []byte("print('v2')"), 0o644) },
			[]string{"role server reads SCRIPT (SCRIPT): its content changed"}},
		{"another program first on the rank's PATH", func(x *sut) error { return os.WriteFile(x.early, []byte("interpreter v1"), 0o755) },
			[]string{"role server runs sut-interp: it resolved to INTERP, now to EARLY"}},
		{"the script gone", func(x *sut) error { return os.Remove(x.script) },
			[]string{"role server reads SCRIPT: it is no longer a regular file there"}},
	} {
		x := beginInterpreted(t)
		if err := c.change(x); err != nil {
			t.Fatal(err)
		}
		err := x.reopen(t)
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("%s changed: %v, want a refusal", c.name, err)
			continue
		}
		for _, want := range c.want {
			want = strings.NewReplacer("INTERP", x.interp, "SCRIPT", x.script, "EARLY", x.early).Replace(want)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s changed: %v\nwant it to say %q", c.name, err, want)
			}
		}
	}
	x := beginInterpreted(t)
	if err := os.WriteFile(x.out, []byte("a run's output"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := x.reopen(t); err != nil {
		t.Errorf("the same system under test (with a file its runs wrote): %v", err)
	}
}

// What plan.json holds of the roles' files: the program as resolved and
// the script, by content; nothing of a run ({{.Out}}) nor of abbench's
// own client; a file is hashed no further than the cap.
func TestExecutablesAreTheFilesTheRolesRun(t *testing.T) {
	x := beginInterpreted(t)
	p, err := Recorded(x.cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range p.Resume.Executables {
		got[e.Role+" "+e.Arg] = e.Path
		if e.Path != "" && (len(e.SHA256) != 64 || e.Hashed != e.Size) {
			t.Errorf("%+v: want a whole digest of a small file", e)
		}
	}
	if got["server sut-interp"] != x.interp || got["server "+x.script] != x.script || got["client sh"] == "" || len(got) != 3 {
		t.Errorf("held %v: want the server's program and script and the client's sh, and nothing else", got)
	}
	big := filepath.Join(t.TempDir(), "big")
	// A sparse file of zeros: the same bytes read back as a written one,
	// without writing 64 MiB (most of this test's CPU).
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, executableCap+10); err != nil {
		t.Fatal(err)
	}
	budget := int64(executableBudget)
	e := rundir.Executable{Role: "r", Arg: big, Path: big}
	hashExecutable(&e, &budget)
	if e.Hashed != executableCap || e.Size != executableCap+10 || budget != executableBudget-executableCap {
		t.Errorf("a file past the cap: %+v, budget left %d", e, budget)
	}
}

// With --resume-new-blocks, a resume after the system under test changed
// pairs no run before the change with one after it: a block whose runs
// all ended is kept, and the block with a run ended and a run left runs
// again whole (the run that had ended marked to run again, so a resume
// of this resume runs it too); plan.json records the change and holds
// the campaign to the new files from then on. A random order, which has
// no blocks, is refused.
func TestResumeNewBlocksPairsNoRunAcrossTheChange(t *testing.T) {
	x := beginInterpreted(t)
	p, err := Recorded(x.cfg.Out)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // block 1 whole, and the first run of block 2
		p.Runs[i].Result = &rundir.Outcome{State: launcher.Succeeded}
	}
	if err := rundir.WritePlan(x.cfg.Out, p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(x.interp, []byte("interpreter v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := x.reopenNew(t, true)
	if err != nil {
		t.Fatalf("a resume with new blocks: %v", err)
	}
	for i, want := range []bool{true, true, false, false} {
		if r.Runs[i].kept != want {
			t.Errorf("run %d: kept %v, want %v", i+1, r.Runs[i].kept, want)
		}
	}
	nb := r.Plan.Resume.NewBlocks
	if len(nb) != 1 || !slices.Equal(nb[0].Again, []int{3}) || len(nb[0].Changes) != 1 || !strings.Contains(nb[0].Changes[0], "role server runs sut-interp") {
		t.Errorf("recorded %+v: want the change and run 3 run again", nb)
	}
	if err := rundir.WritePlan(x.cfg.Out, r.Plan); err != nil {
		t.Fatal(err)
	}
	again, err := x.reopenNew(t, false)
	if err != nil {
		t.Fatalf("a resume of the resume, nothing changed since: %v", err)
	}
	if again.Runs[2].kept || !again.Runs[0].kept {
		t.Errorf("a resume of the resume keeps %v, %v of runs 1 and 3: want run 1 kept and run 3 run again", again.Runs[0].kept, again.Runs[2].kept)
	}

	random := beginInterpreted(t, OrderRandom)
	if err := os.WriteFile(random.interp, []byte("interpreter v2"), 0o755); err != nil {
		t.Fatal(err)
	}
	var re *RefusedError
	if _, err := random.reopenNew(t, true); !errors.As(err, &re) || !strings.Contains(err.Error(), "a random order has no blocks") {
		t.Errorf("a random order with new blocks: %v, want a refusal", err)
	}
}
