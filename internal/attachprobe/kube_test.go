package attachprobe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeKubectl is a kubectl that prints deployment.json for get deployment
// and pods.json for get pods, from its own directory.
func fakeKubectl(t *testing.T, deployment, pods string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"deployment.json": deployment, "pods.json": pods} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\ncase \"$2\" in deployment) cat " + dir + "/deployment.json;; pods) echo \"$@\" > " + dir + "/args; cat " + dir + "/pods.json;; esac\n"
	path := filepath.Join(dir, "kubectl")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

const readyDeployment = `{"spec": {"replicas": 2, "selector": {"matchLabels": {"app": "sim", "arm": "b"}}},
  "status": {"replicas": 2, "updatedReplicas": 2, "readyReplicas": 2, "availableReplicas": 2}}`

func pod(name, ready, ip, image string) string {
	return `{"metadata": {"name": "` + name + `"}, "spec": {"nodeName": "n1"}, "status": {"podIP": "` + ip + `",
	  "conditions": [{"type": "Ready", "status": "` + ready + `"}], "containerStatuses": [{"imageID": "` + image + `"}]}}`
}

// A Deployment's pods are found by its own selector and read with their
// node, address and image digest; a rollout under way, a pod not Ready
// or one without an image digest is ErrNotReady, naming what is not.
func TestDeploymentPods(t *testing.T) {
	ctx := context.Background()
	ok := `{"items": [` + pod("sim-b", "True", "10.0.0.2", "sha256:2") + `, ` + pod("sim-a", "True", "10.0.0.1", "sha256:1") + `]}`
	kc := fakeKubectl(t, readyDeployment, ok)
	pods, err := Deployment(ctx, kc, "ns", "sim")
	if err != nil || len(pods) != 2 || pods[0].Name != "sim-a" || pods[0].IP != "10.0.0.1" || pods[0].Node != "n1" || pods[0].Images[0] != "sha256:1" {
		t.Fatalf("pods %+v, %v", pods, err)
	}
	if args, _ := os.ReadFile(filepath.Join(filepath.Dir(kc), "args")); !strings.Contains(string(args), "-l app=sim,arm=b") {
		t.Errorf("pods listed with %q, want the deployment's selector", args)
	}
	if got := ImagesOf(pods); strings.Join(got, " ") != "sha256:1 sha256:2" {
		t.Errorf("images %v", got)
	}
	cases := map[string]struct{ deployment, pods, want string }{
		"rollout":   {strings.Replace(readyDeployment, `"updatedReplicas": 2`, `"updatedReplicas": 1`, 1), ok, "1 updated"},
		"not ready": {readyDeployment, strings.Replace(ok, `"True"`, `"False"`, 1), "pod sim-b of deployment ns/sim is not Ready"},
		"no digest": {readyDeployment, strings.Replace(ok, `"sha256:2"`, `""`, 1), "image digest for every container"},
		"a pod less, one leaving": {readyDeployment, `{"items": [` + pod("sim-a", "True", "10.0.0.1", "sha256:1") + `, ` +
			strings.Replace(pod("sim-b", "True", "10.0.0.2", "sha256:2"), `{"name": "sim-b"}`, `{"name": "sim-b", "deletionTimestamp": "2026-01-01T00:00:00Z"}`, 1) + `]}`,
			"wants 2 pod(s), its selector app=sim,arm=b finds 1"},
		"a pod less": {readyDeployment, `{"items": [` + pod("sim-a", "True", "10.0.0.1", "sha256:1") + `]}`, "wants 2 pod(s), its selector app=sim,arm=b finds 1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Deployment(ctx, fakeKubectl(t, c.deployment, c.pods), "ns", "sim")
			if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrNotReady saying %q", err, c.want)
			}
		})
	}
	if _, err := Deployment(ctx, filepath.Join(t.TempDir(), "no-kubectl"), "ns", "sim"); err == nil || errors.Is(err, ErrNotReady) {
		t.Errorf("no kubectl: %v", err)
	}
}
