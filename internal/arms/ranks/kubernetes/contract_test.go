package kubernetes

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/scenarios"
)

// TestContract: each role an Indexed Job of pods, from
// the controller's own pod (the driver copies it): it runs inside such a
// pod, of an image with abbench-rank, on the cluster ABBENCH_KUBERNETES=1
// names, with TMPDIR on a hostPath volume of the pod (the rank pods mount
// it too).
func TestContract(t *testing.T) {
	kubetest.NeedCluster(t)
	if os.Getenv(podEnvPod) == "" || os.Getenv(podEnvNamespace) == "" {
		t.Skipf("rank pods copy the controller's own pod: run this test inside a pod (%s and %s set, its service account may make Jobs)", podEnvPod, podEnvNamespace)
	}
	program, _ := rankstest.Programs(t, "../../../..")
	token := "kube-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
	var k *Driver
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			var err error
			k, err = New(os.Getenv(EnvAPI), Run{Scenario: &scenarios.Scenario{}, Token: token, Dir: dir, Coord: rankstest.Coord(t, dir),
				Wrapper: []string{"abbench-rank", "--"}, StartWithin: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
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
