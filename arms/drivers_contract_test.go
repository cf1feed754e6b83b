package arms

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/arms/ranks"
	"github.com/abbench/abbench/arms/ranks/rankstest"
	"github.com/abbench/abbench/container"
	"github.com/abbench/abbench/container/containertest"
	"github.com/abbench/abbench/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// The container and Kubernetes drivers pass the rank drivers' contract
// suite as the controller uses them, behind the rank wrapper.

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
			coord := rankstest.Coord(t, dir)
			return &containerDriver{docker: d, rankBinary: wrapper, s: &scenarios.Scenario{}, token: token, dir: dir, coord: coord}
		},
		Role:    func(r *scenarios.Role) { r.Container = &scenarios.Container{Image: tag, Digest: img.ID} },
		Program: []string{"/rankprog"},
		RankEnv: rankstest.WrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			if err := d.Signal(ctx, "KILL", containerName(token, r.Role, r.Index)); err != nil {
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
	program, _ := rankstest.Programs(t, "..")
	token := NewToken()
	var k *kubeRanks
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			coord := rankstest.Coord(t, dir)
			var err error
			if k, err = newKubeRanks(os.Getenv(EnvKubernetesAPI), token, time.Minute); err != nil {
				t.Fatal(err)
			}
			k.s, k.dir, k.coord, k.wrapper = &scenarios.Scenario{}, dir, coord, []string{"abbench-rank", "--"}
			return k
		},
		Program: []string{program},
		RankEnv: rankstest.WrapperEnv(token),
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
