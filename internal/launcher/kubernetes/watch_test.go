package kubernetes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
)

// fakeCluster is a Launcher whose kubectl answers from files: the run's
// pods (running, on node n1) and node n1 with the Ready condition given.
func fakeCluster(t *testing.T, ready string) (*Launcher, string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("FAKE_KUBE", dir)
	node := `{"metadata":{"labels":{"kubernetes.io/hostname":"n1"}},"status":{"nodeInfo":{"kubeletVersion":"v1.34.4"},"conditions":[{"type":"Ready","status":"` + ready + `","reason":"NodeStatusUnknown","message":"Kubelet stopped posting node status."}]}}`
	for name, content := range map[string]string{"pods.json": `{"items":[` + job + `,` + running + `]}`, "node.json": node} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kubectl, _ := filepath.Abs("testdata/fake-kubectl")
	return &Launcher{Kubectl: kubectl, Poll: 10 * time.Millisecond, Grace: time.Second}, dir
}

func startFake(t *testing.T, l *Launcher) launcher.Run {
	t.Helper()
	r, err := l.Start(context.Background(), launcher.Spec{ID: "1-a", Dir: filepath.Join(t.TempDir(), "run"), Command: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNodeNotReadyEndsTheRunNamingIt(t *testing.T) {
	l, dir := fakeCluster(t, "Unknown")
	r := startFake(t, l)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := r.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.State != launcher.Failed || !strings.Contains(res.Detail, "pod run-0-x7 on node n1 lost its node: node n1 NotReady (NodeStatusUnknown") {
		t.Fatalf("outcome %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "deleted")); err != nil {
		t.Fatal("the run's namespace was not deleted after it ended")
	}
}

func TestCancelDeletesTheNamespaceAndWaits(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	r := startFake(t, l)
	time.Sleep(100 * time.Millisecond)
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait(context.Background())
	if err != nil || res.State != launcher.Cancelled {
		t.Fatalf("outcome %+v (%v), want cancelled", res, err)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if !strings.Contains(string(calls), "delete namespace abbench-") || !strings.Contains(string(calls), "--cascade=foreground") {
		t.Fatalf("no foreground deletion of the namespace:\n%s", calls)
	}
	facts, err := os.ReadFile(filepath.Join(r.(*run).spec.Dir, PodFile))
	if err != nil || !strings.Contains(string(facts), `"kubeletVersion": "v1.34.4"`) || !strings.Contains(string(facts), "sha256:ab") {
		t.Fatalf("pod facts %s (%v): want the node's and the image digest", facts, err)
	}
}
