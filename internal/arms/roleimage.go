package arms

import (
	"fmt"

	"github.com/abbench/abbench/internal/scenarios"
)

// inRoleImage says whether r's ranks run in pods of the role's own image
// (kubernetes.image): they start from that image's environment, as a rank
// in a container does, never from the controller's PATH.
func (c *controller) inRoleImage(r *scenarios.Role) bool {
	return c.opts.Ranks == RanksKubernetes && r.Kubernetes != nil && r.Kubernetes.Image != ""
}

// checkRoleImages refuses a role of its own image where ranks are not
// pods: its ranks would run this host's programs, not the image's, and
// the run would measure another system than the scenario names.
func checkRoleImages(s *scenarios.Scenario, ranks string) error {
	if ranks == RanksKubernetes {
		return nil
	}
	if ranks == "" {
		ranks = RanksLocal
	}
	for _, r := range s.Roles {
		if r.Kubernetes != nil && r.Kubernetes.Image != "" {
			return fmt.Errorf("role %q runs in image %s (kubernetes.image), which only rank pods run: run it with --launcher kubernetes and launcher.kubernetes.ranks: kubernetes (ranks %q here)", r.Name, r.Kubernetes.Image, ranks)
		}
	}
	return nil
}
