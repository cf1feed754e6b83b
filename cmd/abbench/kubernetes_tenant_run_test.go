package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/rundir"
)

// devTenant is the dev cluster's tenant (scripts/kube-dev-cluster.sh
// tenant-env): its environment for abbench and kubectl (its kubeconfig,
// claim and the claim's path here), and its namespace.
func devTenant(t *testing.T) (env map[string]string, namespace string) {
	t.Helper()
	out, err := exec.Command("../../scripts/kube-dev-cluster.sh", "tenant-env").Output()
	if err != nil {
		t.Fatalf("scripts/kube-dev-cluster.sh tenant-env: %v", err)
	}
	env = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if k != "PATH" { // the tests' kubectl is on PATH already
			env[k] = v
		}
	}
	ns, err := exec.Command("kubectl", "--kubeconfig", env["KUBECONFIG"], "config", "view", "--minify", "-o", "jsonpath={..namespace}").Output()
	if err != nil || env["ABBENCH_KUBERNETES_CLAIM_PATH"] == "" {
		t.Fatalf("the tenant's namespace: %v (env %v)", err, env)
	}
	return env, strings.TrimSpace(string(ns))
}

// tenantObjects are the names of every object of the tenant's namespace
// that kubectl get all,cm,secret,sa,role,rolebinding shows.
func tenantObjects(t *testing.T, ns string) []string {
	t.Helper()
	names := strings.Fields(kubectl(t, "get", "all,cm,secret,sa,role,rolebinding", "-n", ns, "-o", "name"))
	slices.Sort(names)
	return names
}

// TestKubernetesTenantQuickstart runs the quickstart as the dev cluster's
// tenant: an account holding only the documented Role in a namespace
// that enforces Pod Security "restricted", the campaign on its
// ReadWriteMany claim, the gen role in pods of the server image (not
// abbench's) each asking for the fake GPU. Accepted; every pod of it in
// that namespace, every gen rank on a node that has the resource, its
// ranks reaching each other by pod address; and nothing of the run left
// in the namespace after.
func TestKubernetesTenantQuickstart(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	env, ns := devTenant(t)
	if enforce := kubectl(t, "get", "namespace", ns, "-o", `jsonpath={.metadata.labels.pod-security\.kubernetes\.io/enforce}`); enforce != "restricted" {
		t.Fatalf("namespace %s enforces %q, want restricted", ns, enforce)
	}
	dir := filepath.Join(env["ABBENCH_KUBERNETES_CLAIM_PATH"], fmt.Sprintf("test-%d", time.Now().UnixNano()))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	scenario := kubeQuickstart(t, mkdir(t, filepath.Join(dir, "scenarios")), 1, "30s")
	prompts := filepath.Join(dir, "testdata", "prompts-256.jsonl")
	putFile(t, "../../testdata/prompts-256.jsonl", prompts)
	rewrite(t, scenario, "prompts: ", "prompts: "+prompts+"\n")
	withGPU := gpuNodes(t)
	before := tenantObjects(t, ns)
	out := filepath.Join(dir, "out")
	kube := exec.Command(abbench, "run", scenario, "-v", "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	kube.Env = wide()
	for k, v := range env {
		kube.Env = append(kube.Env, k+"="+v)
	}
	stdout, err := kube.CombinedOutput()
	if err != nil {
		t.Fatalf("abbench run: %v\n%s", err, stdout)
	}
	for _, run := range []string{"1-async", "2-blocking"} {
		facts := readPodFacts(t, filepath.Join(out, "runs", run))
		if facts.Namespace != ns || !strings.HasPrefix(facts.Run, rundir.KubernetesNamespacePrefix) {
			t.Errorf("run %s ran in namespace %s as %q, want the tenant's %s", run, facts.Namespace, facts.Run, ns)
		}
		if gen := facts.RoleImages["gen"]; !strings.Contains(gen, "sha256:") || gen == facts.ImageID {
			t.Errorf("run %s: role images %v: want gen's the server image's, not the controller's %s", run, facts.RoleImages, facts.ImageID)
		}
		rankNodes(t, filepath.Join(out, "runs", run), facts)
		for i := range 2 {
			if gen := readRankPod(t, filepath.Join(out, "runs", run), rundir.RankName("gen", i)); !withGPU[gen.Node] {
				t.Errorf("run %s: gen rank %d ran on node %s, which has no %s (those with: %v)", run, i, gen.Node, kubeGPU, withGPU)
			}
		}
		assertPodAddresses(t, filepath.Join(out, "runs", run))
	}
	if after := tenantObjects(t, ns); !slices.Equal(before, after) {
		t.Errorf("namespace %s after the campaign:\n%s\nbefore it:\n%s", ns, strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	if labelled := kubectl(t, "get", "jobs,pods,sa,role,rolebinding", "-n", ns, "-l", "abbench.dev/marker", "-o", "name"); strings.TrimSpace(labelled) != "" {
		t.Errorf("objects of a run left in %s:\n%s", ns, labelled)
	}
}

// assertPodAddresses holds the addresses the simulator's ranks published
// in run's coordination directory to pod addresses, never the loopback:
// without the node's network a rank is reached at its pod's.
func assertPodAddresses(t *testing.T, run string) {
	t.Helper()
	addrs, _ := filepath.Glob(filepath.Join(run, "*", "coord", "addr", "*"))
	if len(addrs) == 0 {
		t.Fatalf("run %s: no address published", run)
	}
	for _, a := range addrs {
		data, err := os.ReadFile(a)
		if err != nil || strings.HasPrefix(string(data), "127.") {
			t.Errorf("%s: %q (%v): want a pod's address", a, data, err)
		}
	}
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// rewrite replaces in file the line that starts (after its indent) with
// prefix by line.
func rewrite(t *testing.T, file, prefix, line string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if trimmed := strings.TrimLeft(l, " "); strings.HasPrefix(trimmed, prefix) {
			lines[i] = l[:len(l)-len(trimmed)] + line
			if err := os.WriteFile(file, []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("%s has no line %q", file, prefix)
}
