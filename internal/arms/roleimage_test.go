package arms

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/scenarios"
)

// A role of its own image (kubernetes.image) runs only as rank pods: with
// ranks of this host or srun steps it would run the host's programs, and
// the run is refused naming the role and what to run instead.
func TestARoleImageNeedsRankPods(t *testing.T) {
	s := &scenarios.Scenario{Roles: []scenarios.Role{{Name: "srv", Kubernetes: &scenarios.RoleKubernetes{Image: "vllm:1"}}}}
	for _, ranks := range []string{"", RanksLocal, RanksSrun} {
		err := checkRoleImages(s, ranks)
		if err == nil || !strings.Contains(err.Error(), `role "srv" runs in image vllm:1 (kubernetes.image), which only rank pods run`) {
			t.Errorf("ranks %q: %v", ranks, err)
		}
	}
	if err := checkRoleImages(s, RanksKubernetes); err != nil {
		t.Errorf("rank pods: %v", err)
	}
	// Resources alone need no image: the host's ranks ignore them.
	s.Roles[0].Kubernetes = &scenarios.RoleKubernetes{Resources: scenarios.KubeResources{Limits: map[string]string{"cpu": "1"}}}
	if err := checkRoleImages(s, RanksLocal); err != nil {
		t.Errorf("resources alone: %v", err)
	}
}
