package main

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/rundir"
)

// kubectl runs kubectl against the cluster the tests use.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("kubectl", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestKubernetesQuickstart runs the quickstart campaign with every run a
// Job of its own and every rank a pod of its role's Job: accepted, every
// rank registered from a pod of its own in its run's namespace (never
// the controller's), the bundle carrying the facts of every node a rank
// registered from, every rank pod's image the controller pod's by
// digest, and no pod or namespace of the campaign left afterwards.
func TestKubernetesQuickstart(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	out := filepath.Join(t.TempDir(), "out")
	scenario, _ := filepath.Abs("../../scenarios/quickstart.yaml")
	kube := exec.Command(abbench, "run", scenario, "-v", "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	kube.Env = wide()
	stdout, err := kube.CombinedOutput()
	if err != nil {
		t.Fatalf("abbench run: %v\n%s", err, stdout)
	}
	var namespaces []string
	for _, run := range []string{"1-async", "2-blocking"} {
		facts := readPodFacts(t, filepath.Join(out, "runs", run))
		nodes := rankNodes(t, filepath.Join(out, "runs", run), facts)
		namespaces = append(namespaces, facts.Namespace)
		if !strings.Contains(facts.ImageID, "sha256:") || facts.NodeInfo["kubeletVersion"] == "" {
			t.Errorf("run %s: pod facts lack the image digest or the node's: %+v", run, facts)
		}
		assertBundlesCarryNodes(t, filepath.Join(out, "runs", run), facts, nodes)
		assertRankImages(t, filepath.Join(out, "runs", run), facts.ImageID)
		// Other tests' runs may have pods now: look in this run's namespace only.
		if left := kubectl(t, "get", "pods", "-n", facts.Namespace, "-o", "name"); strings.TrimSpace(left) != "" {
			t.Errorf("run %s: pods left: %s", run, left)
		}
		if ns, err := exec.Command("kubectl", "get", "namespace", facts.Namespace).CombinedOutput(); err == nil || !strings.Contains(string(ns), "NotFound") {
			t.Errorf("run %s: its namespace is still there: %s", run, ns)
		}
	}
	for _, line := range strings.Split(kubectl(t, "get", "pods", "-A", "--no-headers"), "\n") {
		if ns, _, _ := strings.Cut(line, " "); slices.Contains(namespaces, ns) {
			t.Errorf("a pod of the campaign is left: %s", line)
		}
	}
}

// rankNodes are the nodes the ranks of run registered from, each rank
// from a pod of its own (never the controller's) in the run's namespace.
func rankNodes(t *testing.T, run string, facts kubernetes.PodFacts) map[string]bool {
	t.Helper()
	regs, _ := filepath.Glob(filepath.Join(run, "*", "coord", "ranks", "*.json"))
	if len(regs) == 0 {
		t.Fatalf("run %s: no registration", run)
	}
	pods, nodes := map[string]string{}, map[string]bool{}
	for _, path := range regs {
		var reg rundir.Registration
		if data, err := os.ReadFile(path); err != nil || json.Unmarshal(data, &reg) != nil {
			t.Fatalf("%s: %v", path, err)
		}
		pod, rank := reg.Scheduler["ABBENCH_KUBERNETES_POD"], rundir.RankName(reg.Role, reg.Rank)
		if pod == "" || pod == facts.Pod || reg.Scheduler["ABBENCH_KUBERNETES_NAMESPACE"] != facts.Namespace || reg.Scheduler["ABBENCH_KUBERNETES_NODE"] == "" {
			t.Errorf("%s registered from pod %q, not a rank pod of its own in %s (the controller's is %s): %v", rank, pod, facts.Namespace, facts.Pod, reg.Scheduler)
		}
		if other, ok := pods[pod]; ok {
			t.Errorf("%s and %s registered from the same pod %s", other, rank, pod)
		}
		pods[pod], nodes[reg.Scheduler[rundir.SchedulerKubernetesNode]] = rank, true
	}
	return nodes
}

// assertBundlesCarryNodes holds every bundle of run to the pod facts of
// its namespace, with the facts of every node of nodes.
func assertBundlesCarryNodes(t *testing.T, run string, facts kubernetes.PodFacts, nodes map[string]bool) {
	t.Helper()
	// The bundle carries them, of the namespace its token names.
	bundles, _ := filepath.Glob(filepath.Join(run, "*", rundir.BundleDir))
	for _, b := range bundles {
		prov, err := bundle.ReadProvenance(b)
		if err != nil || prov == nil || prov.Pod == nil || prov.Pod.Namespace != facts.Namespace || rundir.KubernetesNamespace(prov.Token) != facts.Namespace {
			t.Fatalf("run %s: bundle %s does not carry the pod facts of namespace %s: %+v (%v)", run, b, facts.Namespace, prov, err)
		}
		// The facts of every node a rank registered from.
		for node := range nodes {
			if n, ok := prov.Pod.Nodes[node]; !ok || n.NodeInfo["kubeletVersion"] == "" {
				t.Errorf("run %s: bundle %s has no facts of node %s, where ranks ran (%q): %v", run, b, node, prov.PodNodesUnread, prov.Pod.Nodes)
			}
		}
		if prov.PodNodesUnread != "" {
			t.Errorf("run %s: bundle %s says %s", run, b, prov.PodNodesUnread)
		}
		t.Logf("run %s: ranks on nodes %v, facts of %d node(s)", run, slices.Sorted(maps.Keys(nodes)), len(prov.Pod.Nodes))
	}
	if len(bundles) == 0 {
		t.Errorf("run %s: no bundle", run)
	}
}

// assertRankImages holds every rank pod of run, in every attempt's
// status, to image, the controller pod's digest.
func assertRankImages(t *testing.T, run, image string) {
	t.Helper()
	statuses, _ := filepath.Glob(filepath.Join(run, "*", rundir.StatusFile))
	if len(statuses) == 0 {
		t.Fatalf("%s: no status", run)
	}
	for _, path := range statuses {
		st, err := rundir.ReadStatus(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Ranks {
			if r.ImageID == "" || r.ImageID != image {
				t.Errorf("%s: %s rank %d ran image %q, the controller's pod %q", path, r.Role, r.Rank, r.ImageID, image)
			}
		}
	}
}

// TestKubernetesPodDeletedMidClient deletes the client's rank pod while it
// runs: the run fails naming that pod and its node, and the comparison is
// censored.
func TestKubernetesPodDeletedMidClient(t *testing.T) {
	cmd, stdout, run := startKubeRun(t, "slow", slowClient)
	pod := readRankPod(t, run, "client-0")
	kubectl(t, "delete", "pod", "-n", pod.Namespace, pod.Pod, "--wait=false")
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitCensored {
		t.Fatalf("exit %v, want %d\n%s", err, cli.ExitCensored, stdout.String())
	}
	for _, want := range []string{"pod " + pod.Pod + " on node " + pod.Node, "CENSORED"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// startKubeRun starts abbench run of a two-arm scenario of roles under
// the kubernetes launcher, once a cluster answers, and waits until arm
// a's client registered: the command, its output, and arm a's run.
func startKubeRun(t *testing.T, name, roles string) (*exec.Cmd, *syncBuffer, string) {
	t.Helper()
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(abbench, "run", writeTwoArmScenario(t, dir, name, roles), "-v", "--launcher", "kubernetes", "--out", out, "--repeat", "1")
	cmd.Env = wide()
	stdout := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(out, "runs", "1-a")
	waitForRegistration(t, cmd, run, "client-0")
	return cmd, stdout, run
}

// readRankPod is the pod, node and namespace rank (ROLE-RANK) of run
// registered from, which must be a pod of its own, not the controller's.
func readRankPod(t *testing.T, run, rank string) kubernetes.PodFacts {
	t.Helper()
	regs, _ := filepath.Glob(filepath.Join(run, "*", "coord", "ranks", rank+".json"))
	var reg rundir.Registration
	if len(regs) == 0 {
		t.Fatalf("%s: no registration of %s", run, rank)
	}
	if data, err := os.ReadFile(regs[0]); err != nil || json.Unmarshal(data, &reg) != nil {
		t.Fatalf("%s: %v", regs[0], err)
	}
	pod := kubernetes.PodFacts{Namespace: reg.Scheduler["ABBENCH_KUBERNETES_NAMESPACE"], Pod: reg.Scheduler["ABBENCH_KUBERNETES_POD"], Node: reg.Scheduler["ABBENCH_KUBERNETES_NODE"]}
	if controller := readPodFacts(t, run); pod.Pod == "" || pod.Pod == controller.Pod || pod.Node == "" {
		t.Fatalf("%s registered from pod %q on node %q, not a pod of its own (the controller's is %s)", rank, pod.Pod, pod.Node, controller.Pod)
	}
	return pod
}

// readPodFacts reads the facts the launcher records of a run's pod once
// its container runs, waiting for them a while.
func readPodFacts(t *testing.T, run string) kubernetes.PodFacts {
	t.Helper()
	var facts kubernetes.PodFacts
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(filepath.Join(run, kubernetes.PodFile))
		if err == nil && json.Unmarshal(data, &facts) == nil {
			return facts
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no pod facts: %v", run, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
