package campaign

import (
	"testing"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
)

// Under the kubernetes launcher every rank is a pod of its own unless the
// scenario keeps them in the controller's pod; the API address is the
// scenario's, else abbench's environment's.
func TestKubernetesRanksArePodsUnlessTheScenarioSaysLocal(t *testing.T) {
	t.Setenv(arms.EnvKubernetesAPI, "https://192.0.2.9:16443")
	s := quickstart(t)
	c := &Config{Launcher: "kubernetes", Scenario: s, Out: t.TempDir(), ScenarioPath: "scenario.yaml"}
	l, ranks := newLauncher(c)
	k := l.(*kubernetes.Launcher)
	if ranks != arms.RanksKubernetes || !k.RankPods || k.API != "https://192.0.2.9:16443" {
		t.Fatalf("default: ranks %q, rank pods %v, API %q", ranks, k.RankPods, k.API)
	}
	s.Launcher.Kubernetes.Ranks, s.Launcher.Kubernetes.APIServer = "local", "https://10.0.0.1:6443"
	l, ranks = newLauncher(c)
	k = l.(*kubernetes.Launcher)
	if ranks != arms.RanksLocal || k.RankPods || k.API != "https://10.0.0.1:6443" {
		t.Fatalf("ranks local: ranks %q, rank pods %v, API %q", ranks, k.RankPods, k.API)
	}
}

// A namespace (the scenario's, else abbench's environment's) makes the
// launcher a tenant there; without one the tenant's options wait for an
// account that may not create namespaces. Its pods never run as root.
func TestKubernetesTenantFromTheScenarioOrTheEnvironment(t *testing.T) {
	t.Setenv(EnvKubernetesClaim, "campaign")
	t.Setenv(EnvKubernetesClaimPath, "/share")
	s := quickstart(t)
	c := &Config{Launcher: "kubernetes", Scenario: s, Out: t.TempDir(), ScenarioPath: "scenario.yaml"}
	l, _ := newLauncher(c)
	k := l.(*kubernetes.Launcher)
	if k.Tenant != nil || k.Fallback == nil || k.Fallback.Claim != "campaign" || k.Fallback.ClaimPath != "/share" || k.Fallback.UID <= 0 {
		t.Fatalf("no namespace: tenant %+v, fallback %+v", k.Tenant, k.Fallback)
	}
	s.Launcher.Kubernetes.Namespace, s.Launcher.Kubernetes.Claim, s.Launcher.Kubernetes.RunAsUser = "team-a", "runs", 4242
	l, _ = newLauncher(c)
	k = l.(*kubernetes.Launcher)
	if k.Tenant == nil || k.Tenant.Namespace != "team-a" || k.Tenant.Claim != "runs" || k.Tenant.UID != 4242 || k.Tenant.GID != 4242 {
		t.Fatalf("the scenario's namespace: tenant %+v", k.Tenant)
	}
}
