package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
)

// tenantKubeconfig makes a tenant of the cluster: a namespace of its own
// (Pod Security "restricted" enforced), a ServiceAccount there whose Role
// allows everything in that namespace and nothing beyond it, and a
// kubeconfig of the account's token. The namespace goes at the test's end.
func tenantKubeconfig(t *testing.T) (kubeconfig, account string) {
	t.Helper()
	ns := fmt.Sprintf("abbench-tenant-%d", time.Now().UnixNano()%1_000_000_000)
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = exec.Command("kubectl", "delete", "namespace", ns, "--wait=false").CombinedOutput() })
	kubectl(t, "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted")
	kubectl(t, "create", "serviceaccount", "tenant", "-n", ns)
	kubectl(t, "create", "role", "tenant", "-n", ns, "--verb=*", "--resource=*.*")
	kubectl(t, "create", "rolebinding", "tenant", "-n", ns, "--role=tenant", "--serviceaccount="+ns+":tenant")
	token := strings.TrimSpace(kubectl(t, "create", "token", "tenant", "-n", ns, "--duration=1h"))
	var config struct {
		Clusters []struct {
			Cluster map[string]any `json:"cluster"`
		} `json:"clusters"`
	}
	if err := json.Unmarshal([]byte(kubectl(t, "config", "view", "--raw", "--minify", "--flatten", "-o", "json")), &config); err != nil || len(config.Clusters) != 1 {
		t.Fatalf("kubectl config view: %v", err)
	}
	data, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Config", "current-context": "tenant",
		"clusters": []any{map[string]any{"name": "c", "cluster": config.Clusters[0].Cluster}},
		"users":    []any{map[string]any{"name": "tenant", "user": map[string]any{"token": token}}},
		"contexts": []any{map[string]any{"name": "tenant", "context": map[string]any{"cluster": "c", "user": "tenant", "namespace": ns}}}})
	kubeconfig = filepath.Join(t.TempDir(), "tenant.kubeconfig")
	if err := os.WriteFile(kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig, ns + ":tenant"
}

// TestKubernetesTenantToldWhatToGrant runs the quickstart as a tenant
// whose account may do anything in its own namespace but make none: exit
// 2 before anything of the campaign is written, naming the account, every right it lacks and
// the ClusterRole binding to ask for; never kubectl's refusal, raw, with
// exit 1.
func TestKubernetesTenantToldWhatToGrant(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	kubeconfig, account := tenantKubeconfig(t)
	scenario, _ := filepath.Abs("../../scenarios/quickstart.yaml")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(abbench, "run", scenario, "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	cmd.Env = append(wide(), "KUBECONFIG="+kubeconfig)
	stdout, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitUsage {
		t.Fatalf("exit %v, want %d\n%s", err, cli.ExitUsage, stdout)
	}
	// Asked before the campaign wrote anything: no --out to clear.
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s was made (%v)", out, err)
	}
	for _, want := range []string{
		"your account system:serviceaccount:" + account + " may not create namespaces (cluster-scoped), get namespaces (cluster-scoped), list namespaces (cluster-scoped), delete namespaces (cluster-scoped), create jobs.batch",
		"hint: an administrator grants them with the ClusterRole abbench-launcher of docs/kubernetes.md",
		"--clusterrole=abbench-launcher --serviceaccount=" + account,
	} {
		if !strings.Contains(string(stdout), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(string(stdout), "is forbidden") {
		t.Errorf("kubectl's refusal, raw:\n%s", stdout)
	}
}
