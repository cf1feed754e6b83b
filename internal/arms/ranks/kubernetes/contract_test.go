package kubernetes

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/scenarios"
)

// TestContract: each role an Indexed Job of pods, from the controller's
// own pod (the driver copies it), on the cluster ABBENCH_KUBERNETES=1
// names (kubectl's), from this host, whose directories the nodes share
// (the dev cluster's): the test makes a namespace of its own with the
// controller's account, a controller pod of the cluster's abbench image
// sharing the test's directory, and the account's token, with which the
// driver talks to the API server from here as it would from that pod.
func TestContract(t *testing.T) {
	kubetest.NeedCluster(t)
	server, account, ns := hostController(t)
	built, _ := rankstest.Programs(t, "../../../..")
	// The rank pods see the shared directory, not where tests keep the
	// programs they build between runs.
	program := filepath.Join(os.TempDir(), "rankprog")
	data, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(program, data, 0o755); err != nil {
		t.Fatal(err)
	}
	token := "kube-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
	// Every rank pod runs within the scenario's phases: the defaults'.
	s := &scenarios.Scenario{Deadlines: scenarios.DefaultDeadlines}
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			k, err := New(server, Run{Scenario: s, Token: token, Dir: dir, Coord: rankstest.Coord(t, dir),
				Wrapper: []string{"abbench-rank", "--"}, StartWithin: time.Minute, Account: account})
			if err != nil {
				t.Fatal(err)
			}
			return k
		},
		Program: []string{program},
		RankEnv: rankstest.WrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			// Its pod deleted by the cluster's administrator (the
			// controller's Role may not), as a drained node or an
			// eviction would; found by its labels.
			selector := fmt.Sprintf("%s=%s,%s=%s,%s=%d", labelToken, labelSafe(token), labelRole, labelSafe(r.Role), labelIndex, r.Index)
			if out := kubectl(t, nil, "delete", "pod", "-n", ns, "-l", selector, "--wait=false", "-o", "name"); len(bytes.Fields(out)) != 1 {
				t.Fatalf("rank %s: deleted %q, want its one pod", r.Name(), out)
			}
		},
		Timeout: 2 * time.Minute,
	})
}

// kubectl runs kubectl args with stdin and returns its output.
func kubectl(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// hostController makes what the driver reads of a controller's pod, from
// this host: a namespace of the test's own holding the launcher's account
// for a controller of rank pods, and a pod of the cluster's abbench image
// that shares (hostPath, at the same path, the node's network) a
// directory the test makes TMPDIR, so every directory of the suite and
// its rank program are the rank pods' too. It points the driver at the
// pod (ABBENCH_KUBERNETES_POD, _NAMESPACE) and returns the API server and
// a directory with the account's token and the cluster's CA. Everything
// goes with the namespace, at the test's end.
func hostController(t *testing.T) (server, account, ns string) {
	t.Helper()
	shared, err := os.MkdirTemp("", "kube-contract-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(shared) })
	t.Setenv("TMPDIR", shared)
	ns = fmt.Sprintf("abbench-contract-%d", time.Now().UnixNano()%1_000_000_000)
	kubectl(t, nil, "create", "namespace", ns)
	t.Cleanup(func() {
		kubectl(t, nil, "delete", "namespace", ns, "--wait=true", "--timeout=60s")
	})
	access, err := kubernetes.ControllerAccess(ns)
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, access, "create", "-f", "-")
	pod, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "controller", "namespace": ns},
		"spec": map[string]any{
			"hostNetwork": true, "automountServiceAccountToken": false, "restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
			"volumes": []any{map[string]any{"name": "shared-0", "hostPath": map[string]any{"path": shared, "type": "Directory"}}},
			"containers": []any{map[string]any{"name": "controller", "image": kubernetes.DefaultImage, "imagePullPolicy": "IfNotPresent",
				"command":      []string{"/bin/sh", "-c", "exec sleep 3600"},
				"volumeMounts": []any{map[string]any{"name": "shared-0", "mountPath": shared}}}},
		}})
	kubectl(t, pod, "create", "-f", "-")
	kubectl(t, nil, "wait", "-n", ns, "--for=condition=Ready", "pod/controller", "--timeout=60s")
	account = t.TempDir()
	token := kubectl(t, nil, "create", "token", kubernetes.ControllerAccount, "-n", ns, "--duration=1h")
	var config struct {
		Clusters []struct {
			Cluster struct {
				Server string `json:"server"`
				CA     string `json:"certificate-authority"`
				CAData string `json:"certificate-authority-data"`
			} `json:"cluster"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal(kubectl(t, nil, "config", "view", "--raw", "--minify", "-o", "json"), &config); err != nil || len(config.Clusters) != 1 {
		t.Fatalf("kubectl config view: %v (%d clusters)", err, len(config.Clusters))
	}
	c := config.Clusters[0].Cluster
	ca, err := base64.StdEncoding.DecodeString(c.CAData)
	if c.CAData == "" {
		ca, err = os.ReadFile(c.CA)
	}
	if err != nil {
		t.Fatalf("the cluster's CA: %v", err)
	}
	for name, data := range map[string][]byte{"token": token, "ca.crt": ca} {
		if err := os.WriteFile(filepath.Join(account, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(podEnvPod, "controller")
	t.Setenv(podEnvNamespace, ns)
	return c.Server, account, ns
}
