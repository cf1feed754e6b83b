package campaign

import (
	"cmp"
	"os"
	"path/filepath"
	"time"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/scenarios"
)

// kubernetesLauncher runs each run as a Job whose pod shares, at the same
// paths, the campaign directory, the scenario's and its prompts', and
// whose activeDeadlineSeconds is the most the run may be queued and run:
// past it the API server ends a run whose abbench was killed. Its ranks
// are pods of their own unless the scenario keeps them in the
// controller's (launcher.kubernetes.ranks: local); the second result is
// the ranks mode the controller runs with.
func kubernetesLauncher(c *Config, grace time.Duration) (*kubernetes.Launcher, string) {
	// The scenario file the controller reads (before the plan sets
	// ScenarioPath, as the launcher's check is: the scenario's own).
	mounts := []string{c.Out, filepath.Dir(cmp.Or(c.ScenarioPath, c.Scenario.File))}
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
	l := &kubernetes.Launcher{Self: c.Self, Mounts: mounts, Grace: grace, Deadline: maxPending + deadline(c.Scenario) + grace,
		RankPods: ranks == arms.RanksKubernetes, API: api}
	t := tenant(c.Scenario.Launcher.Kubernetes)
	if t.Namespace != "" {
		l.Tenant = t
	} else {
		l.Fallback = t // taken where the account may not create namespaces
	}
	return l, ranks
}

// The variables of abbench's environment that give the tenant's keys
// where the scenario does not (the scenario's win).
const (
	EnvKubernetesNamespace = "ABBENCH_KUBERNETES_TENANT_NAMESPACE"
	EnvKubernetesAccount   = "ABBENCH_KUBERNETES_SERVICE_ACCOUNT"
	EnvKubernetesClaim     = "ABBENCH_KUBERNETES_CLAIM"
	EnvKubernetesClaimPath = "ABBENCH_KUBERNETES_CLAIM_PATH"
)

// tenant is the namespaced mode's options: the scenario's keys, else
// abbench's environment's; the pods' uid the scenario's, else the
// launching user's (files on the shared volume then belong to the same
// uid on both sides), else, for root, kubernetes.DefaultTenantUID.
func tenant(k scenarios.KubernetesOptions) *kubernetes.Tenant {
	t := &kubernetes.Tenant{Namespace: cmp.Or(k.Namespace, os.Getenv(EnvKubernetesNamespace)),
		ServiceAccount: cmp.Or(k.ServiceAccount, os.Getenv(EnvKubernetesAccount)),
		Claim:          cmp.Or(k.Claim, os.Getenv(EnvKubernetesClaim)), ClaimPath: cmp.Or(k.ClaimPath, os.Getenv(EnvKubernetesClaimPath))}
	switch uid := int64(os.Getuid()); {
	case k.RunAsUser > 0:
		t.UID, t.GID = k.RunAsUser, k.RunAsUser
	case uid != 0:
		t.UID, t.GID = uid, int64(os.Getgid())
	default:
		t.UID, t.GID = kubernetes.DefaultTenantUID, kubernetes.DefaultTenantUID
	}
	return t
}
