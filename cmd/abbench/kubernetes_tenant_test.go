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
// allows what role (kubectl create role's --verb and --resource) says in
// that namespace and nothing beyond it, and a kubeconfig of the
// account's token. The namespace goes at the test's end.
func tenantKubeconfig(t *testing.T, role ...string) (kubeconfig, account string) {
	t.Helper()
	ns := fmt.Sprintf("abbench-tenant-%d", time.Now().UnixNano()%1_000_000_000)
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { _, _ = exec.Command("kubectl", "delete", "namespace", ns, "--wait=false").CombinedOutput() })
	kubectl(t, "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted")
	kubectl(t, "create", "serviceaccount", "tenant", "-n", ns)
	kubectl(t, append([]string{"create", "role", "tenant", "-n", ns}, role...)...)
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
// whose account may read pods in its own namespace and nothing else: the
// launcher, refused namespaces, runs as a tenant there, and exits 2
// before anything of the campaign is written, naming the account, every
// right it lacks in the namespace and the binding of the documented Role
// to ask for; never kubectl's refusal, raw, with exit 1.
func TestKubernetesTenantToldWhatToGrant(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	kubeconfig, account := tenantKubeconfig(t, "--verb=get,list", "--resource=pods")
	ns, _, _ := strings.Cut(account, ":")
	share := t.TempDir()
	scenario := filepath.Join(share, "scenarios", "quickstart.yaml")
	putFile(t, "../../scenarios/quickstart.yaml", scenario)
	putFile(t, "../../testdata/prompts-256.jsonl", filepath.Join(share, "testdata", "prompts-256.jsonl"))
	out := filepath.Join(share, "out")
	cmd := exec.Command(abbench, "run", scenario, "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	cmd.Env = append(wide(), "KUBECONFIG="+kubeconfig, "ABBENCH_KUBERNETES_CLAIM=campaign", "ABBENCH_KUBERNETES_CLAIM_PATH="+share)
	stdout := runExit(t, cmd, cli.ExitUsage)
	// Asked before the campaign wrote anything: no --out to clear.
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s was made (%v)", out, err)
	}
	for _, want := range []string{
		"your account system:serviceaccount:" + account + " may not create jobs.batch, get jobs.batch, list jobs.batch, delete jobs.batch, create serviceaccounts",
		"in namespace " + ns,
		"hint: an administrator grants them with the Role abbench-tenant of docs/kubernetes.md",
		"kubectl create rolebinding abbench-tenant -n " + ns + " --role=abbench-tenant --serviceaccount=" + account,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "is forbidden") || strings.Contains(stdout, "cluster-scoped") {
		t.Errorf("kubectl's refusal, raw, or a cluster's right asked of a tenant:\n%s", stdout)
	}
}

// TestKubernetesTenantWithoutAClaimToldWhatToGive runs the quickstart as
// a tenant that may do anything in its namespace but names no claim for
// the campaign directory: exit 2 before anything is written, saying which
// keys to give; then with a claim, but the scenario off its path: exit 2
// naming the directory.
func TestKubernetesTenantWithoutAClaimToldWhatToGive(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	kubeconfig, _ := tenantKubeconfig(t, "--verb=*", "--resource=*.*")
	scenario, _ := filepath.Abs("../../scenarios/quickstart.yaml")
	share := t.TempDir()
	out := filepath.Join(share, "out")
	cmd := exec.Command(abbench, "run", scenario, "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	cmd.Env = append(wide(), "KUBECONFIG="+kubeconfig)
	if stdout := runExit(t, cmd, cli.ExitUsage); !strings.Contains(stdout, "no ReadWriteMany claim") || !strings.Contains(stdout, "claim_path") {
		t.Errorf("no claim: output\n%s", stdout)
	}
	cmd = exec.Command(abbench, "run", scenario, "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	cmd.Env = append(wide(), "KUBECONFIG="+kubeconfig, "ABBENCH_KUBERNETES_CLAIM=campaign", "ABBENCH_KUBERNETES_CLAIM_PATH="+share)
	if stdout := runExit(t, cmd, cli.ExitUsage); !strings.Contains(stdout, filepath.Dir(scenario)+" is outside the claim campaign's path "+share) {
		t.Errorf("scenario off the claim: output\n%s", stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s was made (%v)", out, err)
	}
}

// runExit runs cmd, wanting exit code, and returns its output.
func runExit(t *testing.T, cmd *exec.Cmd, code int) string {
	t.Helper()
	stdout, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != code {
		t.Fatalf("exit %v, want %d\n%s", err, code, stdout)
	}
	return string(stdout)
}

// putFile copies from to to, making its directory.
func putFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(to), 0o755)
	}
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
