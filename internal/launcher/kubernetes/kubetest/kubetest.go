// Package kubetest gates the tests that need a real Kubernetes cluster.
package kubetest

import (
	"os"
	"testing"

	"github.com/abbench/abbench/internal/launcher/kubernetes"
)

// EnvTests, set to 1, runs the tests that need a real cluster (the one
// kubectl finds), and fails them when none answers; unset, they skip.
// .ci/run sets it once scripts/kube-dev-cluster.sh has brought one up.
const EnvTests = "ABBENCH_KUBERNETES"

// NeedCluster skips t under -short or unless EnvTests is 1, and fails it
// then when no cluster answers.
func NeedCluster(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("a real Kubernetes cluster's pods: go test without -short runs them")
	}
	if os.Getenv(EnvTests) != "1" {
		t.Skipf("a real Kubernetes cluster's pods: %s=1 runs them (scripts/kube-dev-cluster.sh up starts one)", EnvTests)
	}
	if ok, why := kubernetes.ClusterUp(); !ok {
		t.Fatalf("%s=1 but no Kubernetes cluster answers (%s): scripts/kube-dev-cluster.sh up starts one", EnvTests, why)
	}
}
