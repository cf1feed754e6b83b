package kubernetes_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/launcher/kubernetes"
	"github.com/abbench/abbench/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/launcher/launchertest"
)

// TestKubernetesBackend runs the shared suite on a real cluster: every
// run a Job in a namespace of its own, its directory shared into the pod
// (hostPath: the dev cluster's nodes are this machine).
func TestKubernetesBackend(t *testing.T) {
	kubetest.NeedCluster(t)
	dir := sharedTempDir(t)
	launchertest.Run(t, launchertest.Backend{
		Launcher: &kubernetes.Launcher{Poll: 200 * time.Millisecond, Grace: 2 * time.Second, Deadline: 5 * time.Minute},
		Alive: func(r launcher.Run) []int {
			return proctree.WithEnv(kubernetes.EnvAllocation, kubernetes.Marker(r))
		},
		Timeout: 90 * time.Second,
	}, dir)
}

// sharedTempDir is a fresh directory the pods can mount: t.TempDir, whose
// path the pod's hostPath volume names as it is.
func sharedTempDir(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
