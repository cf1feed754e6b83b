package slurm

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/launcher/launchertest"
	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/scenarios"
)

// needCluster skips under -short, and without a reachable Slurm cluster
// except in CI, where .ci/run brings one up (scripts/slurm-dev-cluster.sh)
// and its absence fails.
func needCluster(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a real Slurm cluster's jobs: go test without -short runs them")
	}
	ok, why := ClusterUp()
	if ok {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no Slurm cluster (%s): .ci/run starts one with scripts/slurm-dev-cluster.sh up", why)
	}
	t.Skipf("no Slurm cluster reachable (start one: sudo scripts/slurm-dev-cluster.sh up): %s", why)
}

func TestSlurmBackend(t *testing.T) {
	needCluster(t)
	launchertest.Run(t, launchertest.Backend{
		Launcher: &Launcher{Poll: 100 * time.Millisecond, Grace: 2 * time.Second},
		Alive: func(r launcher.Run) []int {
			return proctree.WithEnv(EnvAllocation, r.(*run).marker)
		},
		Timeout: 60 * time.Second,
	}, t.TempDir())
}

func TestScriptQuotesAnyValue(t *testing.T) {
	l := &Launcher{Options: testOptions(), TasksPerNode: 5}
	spec := launcher.Spec{ID: "1-a", Dir: "/shared/run", Command: []string{"abbench", "arm", "s.yaml", "--arm", "it's"},
		Env: []string{"A=a,b c=d \"q\" 'r'\nnext ü"}, Nodes: []string{"node1", "node2"}}
	script := l.Script(spec, "m")
	for _, want := range []string{
		"#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=5\n", "#SBATCH --partition=gpu\n", "#SBATCH --exclusive\n",
		"#SBATCH --container-image=nvcr.io/x\n", "export A='a,b c=d \"q\" '\\''r'\\''\nnext ü'\n",
		"exec 'abbench' 'arm' 's.yaml' '--arm' 'it'\\''s'\n", "#SBATCH --nodelist=node1,node2\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	// The quoting survives a real shell.
	out, err := exec.Command("bash", "-c", "export A='a,b c=d \"q\" '\\''r'\\''\nnext ü'; printf %s \"$A\"").Output()
	if err != nil || string(out) != "a,b c=d \"q\" 'r'\nnext ü" {
		t.Fatalf("shell read %q (%v)", out, err)
	}
}

// Runs that must not share nodes ask Slurm for nodes of their own, once
// (also when the scenario's extra_sbatch asks too); other runs do not.
func TestScriptAsksForNodesOfItsOwnWhenExclusive(t *testing.T) {
	spec := launcher.Spec{ID: "1-a", Dir: "/shared/run", Command: []string{"abbench"}}
	for _, c := range []struct {
		exclusive bool
		extra     []string
		want      int
	}{{false, nil, 0}, {true, nil, 1}, {true, []string{"--exclusive"}, 1}} {
		l := &Launcher{Options: scenarios.SlurmOptions{ExtraSbatch: c.extra}, Exclusive: c.exclusive}
		if got := strings.Count(l.Script(spec, "m"), "#SBATCH --exclusive\n"); got != c.want {
			t.Errorf("exclusive %v, extra_sbatch %v: %d --exclusive directives, want %d", c.exclusive, c.extra, got, c.want)
		}
	}
}
