package kubernetes_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/launcher/launchertest"
	"github.com/abbench/abbench/internal/proctree"
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

// TestKubernetesFaultsNameThePod starts runs a real cluster cannot run: an
// image that is on no node (and may not be pulled), and a pod held to a
// node that does not exist. The first fails at once naming the pod, its
// node and the kubelet's reason; the second stays pending with the
// scheduler's reason, and Cancel removes it.
func TestKubernetesFaultsNameThePod(t *testing.T) {
	kubetest.NeedCluster(t)
	dir := sharedTempDir(t)
	l := &kubernetes.Launcher{Image: "abbench.local/absent:none", PullPolicy: "Never", Poll: 200 * time.Millisecond, Grace: time.Second, Deadline: 5 * time.Minute}
	r, err := l.Start(context.Background(), launcher.Spec{ID: "absent", Dir: filepath.Join(dir, "absent"), Command: []string{"/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatalf("an image that cannot be pulled did not end the run: %v", err)
	}
	if res.State != launcher.Failed || !regexp.MustCompile(`pod run-\S+ on node \S+ cannot start its container: ErrImageNeverPull`).MatchString(res.Detail) {
		t.Fatalf("outcome %+v", res)
	}
	l.Image = ""
	r, err = l.Start(context.Background(), launcher.Spec{ID: "nowhere", Dir: filepath.Join(dir, "nowhere"), Command: []string{"/bin/true"}, Nodes: []string{"no-such-node"}})
	if err != nil {
		t.Fatal(err)
	}
	status := r.(interface{ Status() string })
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(status.Status(), "unscheduled: Unschedulable: 0/") {
		if time.Now().After(deadline) {
			t.Fatalf("status %q, want pending with the scheduler's reason", status.Status())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	if res, _ := r.Wait(context.Background()); res.State != launcher.Cancelled || !strings.Contains(res.Detail, "it never ran, pending: pod run-") ||
		!strings.Contains(res.Detail, "Unschedulable") || !strings.HasPrefix(status.Status(), "ended") {
		t.Fatalf("after Cancel: %+v, status %q", res, status.Status())
	}
}
