package arms

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/arms/ranks"
	"github.com/abbench/abbench/arms/ranks/local"
	"github.com/abbench/abbench/arms/ranks/rankstest"
	"github.com/abbench/abbench/arms/rankwrap"
	"github.com/abbench/abbench/container"
	"github.com/abbench/abbench/container/containertest"
	"github.com/abbench/abbench/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The rank drivers pass their contract suite as the controller uses them:
// behind the rank wrapper, which registers each rank in the run's
// coordination directory before it runs the rank's command.

// rankProgram builds the suite's rank program, statically.
func rankProgram(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	if err := containertest.StaticBuild(bin, "ranks/rankstest/rankprog"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(bin, "rankprog")
}

// contractRun makes what the rank wrapper needs of a run in dir: its
// coordination directory, and each rank's names in its environment.
func contractRun(t *testing.T, dir, token string) (coord string) {
	t.Helper()
	coord = rundir.Coord(dir)
	for _, sub := range []string{rundir.RanksDir, rundir.MachinesDir} {
		if err := os.MkdirAll(filepath.Join(coord, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return coord
}

// wrapperEnv is what the rank wrapper reads of a rank's environment.
func wrapperEnv(token string) func(dir string, r *ranks.Rank) []string {
	return func(dir string, r *ranks.Rank) []string {
		return []string{rankwrap.EnvCoord + "=" + rundir.Coord(dir), rankwrap.EnvRole + "=" + r.Role,
			rankwrap.EnvRank + "=" + strconv.Itoa(r.Index), rankwrap.EnvToken + "=" + token}
	}
}

// killPID kills the local process that stands for r.
func killPID(t *testing.T, r *ranks.Rank) {
	if err := syscall.Kill(r.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// TestLocalDriverContract: local ranks behind the rank wrapper.
func TestLocalDriverContract(t *testing.T) {
	token := NewToken()
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			contractRun(t, dir, token)
			return &local.Driver{Dir: dir, Wrapper: []string{filepath.Join(simDir, "abbench-rank"), "--"}}
		},
		Program: []string{rankProgram(t)},
		RankEnv: wrapperEnv(token),
		Kill:    killPID,
	})
}

// TestContainerDriverContract: each rank a container of an image FROM
// scratch holding the rank program, with the static rank wrapper mounted
// as its entrypoint. Without a docker daemon it skips (fails in CI).
func TestContainerDriverContract(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and runs containers: go test without -short runs it")
	}
	tag, _ := containertest.StaticImage(t, "rankprog", "FROM scratch\nCOPY rankprog /rankprog\n", "ranks/rankstest/rankprog")
	ctx := context.Background()
	img, err := container.Docker{}.Inspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	wrapper, err := staticWrapper(filepath.Join(simDir, "abbench"))
	if err != nil {
		t.Skipf("the rank wrapper mounted into containers: %v", err)
	}
	token := NewToken()
	scratch := rundir.Scratch(token)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	d := container.Docker{Env: dockerEnv()}
	t.Cleanup(func() {
		if left := removeRunContainers(d, token); len(left) > 0 {
			t.Errorf("containers of the run are left: %v", left)
		}
		_ = os.RemoveAll(scratch) // the temporary directory's, named by the token
	})
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			coord := contractRun(t, dir, token)
			return &containerDriver{docker: d, rankBinary: wrapper, s: &scenarios.Scenario{}, token: token, dir: dir, coord: coord}
		},
		Role:    func(r *scenarios.Role) { r.Container = &scenarios.Container{Image: tag, Digest: img.ID} },
		Program: []string{"/rankprog"},
		RankEnv: wrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			if err := d.Signal(ctx, "KILL", containerName(token, r.Role, r.Index)); err != nil {
				t.Fatal(err)
			}
		},
		Timeout: time.Minute,
	})
}

// TestSrunDriverContract: each role an srun step, from inside a Slurm
// allocation whose nodes share TMPDIR (the runs' directories, the rank
// program and the wrapper are made there): salloc -N1 go test -run
// TestSrunDriverContract ./arms/.
func TestSrunDriverContract(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Slurm allocation's steps: go test without -short runs it")
	}
	if os.Getenv("SLURM_JOB_NODELIST") == "" {
		t.Skip("srun steps need a Slurm allocation: run this test inside one (salloc -N1 go test -run TestSrunDriverContract ./arms/)")
	}
	token := NewToken()
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			coord := contractRun(t, dir, token)
			d, err := newSrunDriver(&scenarios.Scenario{}, dir, coord, []string{filepath.Join(simDir, "abbench-rank"), "--"})
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		Program: []string{rankProgram(t)},
		RankEnv: wrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			// The task's own process, found by its registration (srun's
			// would end the whole step); the allocation is this host's.
			reg, ok, err := rundir.ReadRegistration(rundir.Coord(filepath.Dir(r.Log)), r.Role, r.Index)
			if !ok || err != nil {
				t.Fatalf("rank %s has no registration (%v)", r.Name(), err)
			}
			if err := syscall.Kill(reg.PID, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		},
		Timeout: time.Minute,
	})
}

// TestKubernetesDriverContract: each role an Indexed Job of pods, from
// the controller's own pod (the driver copies it): it runs inside such a
// pod, of an image with abbench-rank, on the cluster ABBENCH_KUBERNETES=1
// names, with TMPDIR on a hostPath volume of the pod (the rank pods mount
// it too).
func TestKubernetesDriverContract(t *testing.T) {
	kubetest.NeedCluster(t)
	if os.Getenv(podEnvPod) == "" || os.Getenv(podEnvNamespace) == "" {
		t.Skipf("rank pods copy the controller's own pod: run this test inside a pod (%s and %s set, its service account may make Jobs)", podEnvPod, podEnvNamespace)
	}
	token := NewToken()
	var k *kubeRanks
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			coord := contractRun(t, dir, token)
			var err error
			if k, err = newKubeRanks(os.Getenv(EnvKubernetesAPI), token, time.Minute); err != nil {
				t.Fatal(err)
			}
			k.s, k.dir, k.coord, k.wrapper = &scenarios.Scenario{}, dir, coord, []string{"abbench-rank", "--"}
			return k
		},
		Program: []string{rankProgram(t)},
		RankEnv: wrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			// Its pod deleted, as a drained node or an eviction would.
			k.mu.Lock()
			pr := k.ranks[rankKey{labelSafe(r.Role), r.Index}]
			k.mu.Unlock()
			if pr == nil || pr.name == "" {
				t.Fatalf("rank %s has no pod yet", r.Name())
			}
			if err := k.api.Delete(context.Background(), k.podsPath()+"/"+pr.name, "Background"); err != nil {
				t.Fatal(err)
			}
		},
		Timeout: 2 * time.Minute,
	})
}
