package campaign

import (
	"os"
	"path/filepath"
	"time"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
)

// kubernetesLauncher runs each run as a Job whose pod shares, at the same
// paths, the campaign directory, the scenario's and its prompts', and
// whose activeDeadlineSeconds is the most the run may be queued and run:
// past it the API server ends a run whose abbench was killed. Its ranks
// are pods of their own unless the scenario keeps them in the
// controller's (launcher.kubernetes.ranks: local); the second result is
// the ranks mode the controller runs with.
func kubernetesLauncher(c *Config, grace time.Duration) (*kubernetes.Launcher, string) {
	mounts := []string{c.Out, filepath.Dir(c.ScenarioPath)}
	if p := c.Scenario.Workload.Prompts; p != "" {
		mounts = append(mounts, filepath.Dir(c.Scenario.Path(p)))
	}
	for i, m := range mounts {
		if abs, err := filepath.Abs(m); err == nil { // the scenario's paths are relative to where abbench runs
			mounts[i] = abs
		}
	}
	maxPending := c.MaxPending
	if maxPending <= 0 {
		maxPending = time.Hour
	}
	ranks := c.Scenario.Launcher.Kubernetes.Ranks
	if ranks == "" {
		ranks = arms.RanksKubernetes
	}
	api := c.Scenario.Launcher.Kubernetes.APIServer
	if api == "" {
		api = os.Getenv(arms.EnvKubernetesAPI)
	}
	return &kubernetes.Launcher{Self: c.Self, Mounts: mounts, Grace: grace, Deadline: maxPending + deadline(c.Scenario) + grace,
		RankPods: ranks == arms.RanksKubernetes, API: api}, ranks
}
