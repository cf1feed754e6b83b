package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/abbench/abbench/internal/launcher/slurm"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/testbin"
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "abbench" {
		flag.Parse()
		// Under -short no script starts an arm (TestScriptsThatRunSkipUnderShort
		// holds every script that runs one to a [short] skip before it), so
		// nothing runs the simulator: its two builds, seconds before the
		// first test, are left to the full suite.
		if !testing.Short() {
			buildSimulators()
		}
	}
	testscript.Main(m, map[string]func(){
		"abbench": main,
	})
}

// buildSimulators puts a disaggsim on PATH for the scripts that run the
// embedded default workload, and sets mainSim and slowSim.
func buildSimulators() {
	dir, err := os.MkdirTemp("", "abbench-test-bin")
	if err != nil {
		panic(err)
	}
	// Both built into kept directories (linked only when the simulator's
	// sources changed), then linked into this run's own.
	if err := testbin.BuildInto(dir, nil, nil, "../disaggsim"); err != nil {
		panic("building disaggsim: " + err.Error())
	}
	// A second build, slower on purpose, for the A/B of two builds.
	slow := filepath.Join(dir, "slow")
	if err := os.Mkdir(slow, 0o755); err != nil {
		panic(err)
	}
	if err := testbin.BuildInto(slow, nil, []string{"-ldflags=-X main.builtSlowdown=3ms"}, "../disaggsim"); err != nil {
		panic("building the slow disaggsim: " + err.Error())
	}
	slowSim = filepath.Join(slow, "disaggsim")
	mainSim = filepath.Join(dir, "disaggsim")
	os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
}

// mainSim and slowSim are two builds of the simulator, the second slower
// on purpose ($MAINSIM and $SLOWSIM in the scripts).
var mainSim, slowSim string

// TestScripts runs the CLI end to end: each testdata/script/*.txtar runs the
// real binary and checks stdout, stderr and the exit status. $REPO is the
// repository root, for the committed scenarios and workloads. Under
// go test -short only the scripts that start no run take part (the others
// begin with [short] skip; TestScriptsThatRunSkipUnderShort holds that).
func TestScripts(t *testing.T) {
	t.Parallel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			env.Setenv("MAINSIM", mainSim)
			env.Setenv("SLOWSIM", slowSim)
			env.Setenv("IMAGETAG", imageTag())
			// Reports fit $COLUMNS (80 off a terminal): the scripts match
			// whole lines of them, so they get lines nothing wraps; a
			// script that tests the fit sets its own (report_width.txtar).
			env.Setenv("COLUMNS", "100000")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"rundir-tree":  cmdRundirTree,
			"tmpfs":        cmdTmpfs,
			"jsonschema":   cmdJSONSchema(filepath.Join(repo, "docs", "schema")),
			"static-bin":   cmdStaticBin,
			"docker-image": cmdDockerImage,
			"overlap":      cmdOverlap,
		},
		Condition: scriptCondition,
	})
}

// startsRuns matches a script line that runs arms: an exec of abbench run
// or abbench arm, directly or through sh -c.
var startsRuns = regexp.MustCompile(`(?m)^\s*(\[[^\]]+\]\s*)?(!\s*)?exec\s.*\babbench\s+(run|arm)\b`)

// runsNothing names the scripts whose run and arm lines never start one.
var runsNothing = map[string]string{
	"cli_usage.txtar": "every run and arm it execs is refused as a usage error, or asks for --help",
}

// TestScriptsThatRunSkipUnderShort keeps go test -short fast: a script that
// runs arms (a campaign takes seconds, a daemon test may hang on a loaded
// machine) says [short] skip before its first run.
func TestScriptsThatRunSkipUnderShort(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no script in testdata/script")
	}
	for _, f := range files {
		a, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		script := string(a.Comment)
		run := startsRuns.FindStringIndex(script)
		skip := strings.Index("\n"+script, "\n[short] skip ") // where in script it starts
		switch _, exempt := runsNothing[filepath.Base(f)]; {
		case exempt && skip >= 0:
			t.Errorf("%s: [short] skip in a script listed as running nothing", f)
		case !exempt && run != nil && (skip < 0 || skip > run[0]):
			line := strings.Count(script[:run[0]], "\n") + 1
			t.Errorf("%s:%d: runs arms without a [short] skip before: add [short] skip 'runs a campaign' above it", f, line)
		}
	}
}

// cmdRundirTree is rundir-tree DIR: DIR is a finished campaign laid out as
// rundir says.
func cmdRundirTree(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: rundir-tree DIR")
	}
	err := rundir.CheckCampaign(ts.MkAbs(args[0]))
	if neg != (err != nil) {
		ts.Fatalf("rundir-tree %s: %v", args[0], err)
	}
}

// cmdJSONSchema is jsonschema NAME FILE...: every FILE (a glob) validates
// against NAME.schema.json of the schema directory.
func cmdJSONSchema(schemas string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: jsonschema NAME FILE...")
		}
		sch, err := compileSchema(schemas, args[0])
		ts.Check(err)
		for _, pattern := range args[1:] {
			files, _ := filepath.Glob(ts.MkAbs(pattern))
			if len(files) == 0 {
				ts.Fatalf("jsonschema: no file matches %s", pattern)
			}
			for _, f := range files {
				err := validateFile(sch, f)
				if neg != (err != nil) {
					ts.Fatalf("jsonschema %s %s: %v", args[0], f, err)
				}
			}
		}
	}
}

// scriptCondition answers the scripts' own conditions: [redis], [root],
// [slurm] and [docker]. In CI (CI set) each must hold: .ci/run provides them.
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "docker":
		return dockerCondition()
	case "redis":
		return realRedis()
	case "root":
		if os.Geteuid() != 0 && os.Getenv("CI") != "" {
			return false, fmt.Errorf("not root in CI: .ci/run runs as root there, for the scripts that need it")
		}
		return os.Geteuid() == 0, nil
	case "slurmhosts":
		return slurmHostsUp("../..")
	case "slurm":
		ok, why := slurmUp()
		if !ok && os.Getenv("CI") != "" {
			return false, fmt.Errorf("no Slurm cluster in CI (%s): .ci/run starts one", why)
		}
		return ok, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// slurmUp asks Slurm once per test process whether a cluster is up: without
// a controller sinfo takes 9 s to give up, and six tests ask.
var slurmUp = sync.OnceValues(slurm.ClusterUp)

// realRedis says whether Redis's server and benchmark are installed; in CI
// (CI set) they must be: .ci/run installs them.
func realRedis() (bool, error) {
	for _, cmd := range []string{"redis-server", "redis-cli", "redis-benchmark"} {
		if _, err := exec.LookPath(cmd); err != nil {
			if os.Getenv("CI") != "" {
				return false, fmt.Errorf("%s is not installed in CI: .ci/run installs redis-server and redis-tools", cmd)
			}
			return false, nil
		}
	}
	return true, nil
}

// compileSchema compiles docs/schema/NAME.schema.json, with every other
// schema of the directory at hand for its references.
func compileSchema(dir, name string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	files, _ := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	for _, f := range files {
		file, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(file)
		file.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if err := c.AddResource(schemaBase+filepath.Base(f), doc); err != nil {
			return nil, err
		}
	}
	return c.Compile(schemaBase + name + ".schema.json")
}

// schemaBase is the base of every schema's $id.
const schemaBase = "https://abbench.dev/schema/"

func validateFile(sch *jsonschema.Schema, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	inst, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// wide is the environment of a Go test's abbench whose report it matches
// line by line (a pod and its node, a Slurm job's state), as the scripts
// do: wide enough that nothing wraps (reports fit $COLUMNS, 80 unset).
func wide() []string { return append(os.Environ(), "COLUMNS=100000") }
