package campaign

import (
	"path/filepath"
	"time"

	"github.com/abbench/abbench/launcher/kubernetes"
)

// kubernetesLauncher runs each run as a Job whose pod shares, at the same
// paths, the campaign directory, the scenario's and its prompts', and
// whose activeDeadlineSeconds is the most the run may be queued and run:
// past it the API server ends a run whose abbench was killed.
func kubernetesLauncher(c *Config, grace time.Duration) *kubernetes.Launcher {
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
	return &kubernetes.Launcher{Self: c.Self, Mounts: mounts, Grace: grace, Deadline: maxPending + deadline(c.Scenario) + grace}
}
