package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/lockedbuf"
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

// The dev cluster's server image (the simulator alone, on a PATH of its
// own) and the fake extended resource its last node advertises
// (scripts/kube-dev-cluster.sh).
const (
	kubeServerImage = "abbench.local/disaggsim:dev"
	kubeGPU         = "example.com/gpu"
)

// kubeQuickstart writes the quickstart into dir with its gen role in pods
// of the server image, each rank asking for gpus of the fake extended
// resource, and its ready deadline ready.
func kubeQuickstart(t *testing.T, dir string, gpus int, ready string) string {
	t.Helper()
	data, err := os.ReadFile("../../scenarios/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := string(data)
	gen := `    command: [disaggsim, gen, --rank, "{{.Rank}}", --coord, "{{.Coord}}"]` + "\n"
	for old, repl := range map[string]string{
		"prompts: ../testdata/prompts-256.jsonl": "prompts: " + prompts,
		gen:                                      gen + fmt.Sprintf("    kubernetes: {image: %s, resources: {limits: {%s: %q}}}\n", kubeServerImage, kubeGPU, strconv.Itoa(gpus)),
		"ready: 20s":                             "ready: " + ready,
	} {
		if !strings.Contains(s, old) {
			t.Fatalf("quickstart.yaml has no %q", old)
		}
		s = strings.Replace(s, old, repl, 1)
	}
	path := filepath.Join(dir, "quickstart-kube.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// gpuNodes are the nodes that advertise the fake extended resource.
func gpuNodes(t *testing.T) map[string]bool {
	t.Helper()
	nodes := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(kubectl(t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.allocatable.example\.com/gpu}{"\n"}{end}`)), "\n") {
		if name, n, _ := strings.Cut(line, " "); n != "" && n != "0" {
			nodes[name] = true
		}
	}
	if len(nodes) == 0 {
		t.Fatalf("no node advertises %s (scripts/kube-dev-cluster.sh up patches it onto the last node)", kubeGPU)
	}
	return nodes
}

// TestKubernetesQuickstart runs the quickstart campaign with every run a
// Job of its own and every rank a pod of its role's Job, the gen role in
// pods of the server image (not abbench's) asking for the fake GPU:
// accepted, every rank registered from a pod of its own in its run's
// namespace (never the controller's), every gen rank on a node that has
// the resource, the bundle carrying the facts of every node a rank
// registered from, every other rank pod's image the controller pod's by
// digest and every gen rank pod's the server image's, and no pod or
// namespace of the campaign left afterwards.
func TestKubernetesQuickstart(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	scenario := kubeQuickstart(t, dir, 1, "20s")
	withGPU := gpuNodes(t)
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
		// The server image's digest, a softer fact held between runs.
		if gen := facts.RoleImages["gen"]; !strings.Contains(gen, "sha256:") || gen == facts.ImageID || facts.RoleImages["ctx"] != facts.ImageID {
			t.Errorf("run %s: role images %v: want gen's the server image's, ctx's the controller's %s", run, facts.RoleImages, facts.ImageID)
		}
		assertBundlesCarryNodes(t, filepath.Join(out, "runs", run), facts, nodes)
		assertRankImages(t, filepath.Join(out, "runs", run), facts.ImageID)
		for i := range 2 {
			if gen := readRankPod(t, filepath.Join(out, "runs", run), rundir.RankName("gen", i)); !withGPU[gen.Node] {
				t.Errorf("run %s: gen rank %d ran on node %s, which has no %s (those with: %v)", run, i, gen.Node, kubeGPU, withGPU)
			}
		}
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
// status, to image, the controller pod's digest, but the gen role's,
// which ran the server image.
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
			switch {
			case r.Role == "gen" && (r.ImageID == "" || r.ImageID == image):
				t.Errorf("%s: gen rank %d ran image %q, not the server image %s", path, r.Rank, r.ImageID, kubeServerImage)
			case r.Role != "gen" && (r.ImageID == "" || r.ImageID != image):
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
func startKubeRun(t *testing.T, name, roles string) (*exec.Cmd, *lockedbuf.Buffer, string) {
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
	stdout := &lockedbuf.Buffer{}
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

// TestKubernetesOverRequestCensored asks, for each gen rank, more of the
// fake GPU than any node has: no gen pod is ever scheduled, and the
// campaign is censored within the ready deadline naming the scheduler's
// reason.
func TestKubernetesOverRequestCensored(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	dir := t.TempDir()
	scenario := kubeQuickstart(t, dir, 3, "10s")
	cmd := exec.Command(abbench, "run", scenario, "-v", "--launcher", "kubernetes", "--out", filepath.Join(dir, "out"), "--repeat", "1")
	cmd.Env = wide()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitCensored {
		t.Fatalf("exit %v, want %d\n%s", err, cli.ExitCensored, out)
	}
	for _, want := range []string{"root causes first:\n  rank-missing (arm async, role gen rank 0): gen rank 0 never registered while waiting for readiness: pod gen-0-", " unscheduled: Unschedulable: 0/", " Insufficient " + kubeGPU} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
