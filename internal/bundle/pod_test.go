package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/rundir"
)

const kubeToken = "20261201T120000Z-kube9f86d081884c7d65-0123456789ab"

// podFixture is the launcher's kube-pod.json of a real node, of namespace.
func podFixture(t *testing.T, namespace string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/kube/kube-pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var p machine.Pod
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	p.Namespace = namespace
	data, _ = json.MarshalIndent(p, "", "  ")
	return data
}

// writeKubeBundle writes the bundle of a run under Kubernetes (its token
// names a namespace) whose arm directory holds pod (none when nil),
// written after delay; it returns the bundle and its provenance.
func writeKubeBundle(t *testing.T, pod []byte, delay, wait time.Duration) (string, *Provenance) {
	t.Helper()
	return writeKubeBundleOn(t, nil, nil, pod, delay, wait)
}

// writeKubeBundleOn is writeKubeBundle of a run whose rank i registered
// from node nodes[i] (none: no node in its registration), whose arm
// directory holds first (none when nil) as the bundle starts, then pod
// (none when nil) written after delay.
func writeKubeBundleOn(t *testing.T, nodes []string, first, pod []byte, delay, wait time.Duration) (string, *Provenance) {
	t.Helper()
	dir, s, sb, ev, st := makeRun(t, 4)
	st.Token = kubeToken
	for rank, node := range nodes {
		path := rundir.RegistrationPath(filepath.Join(dir, "coord"), "ctx", rank)
		var reg rundir.Registration
		if data, err := os.ReadFile(path); err != nil || json.Unmarshal(data, &reg) != nil {
			t.Fatalf("registration %s: %v", path, err)
		}
		reg.Scheduler = map[string]string{rundir.SchedulerKubernetesNode: node}
		data, _ := json.Marshal(reg)
		os.WriteFile(path, data, 0o644)
	}
	podPath := filepath.Join(filepath.Dir(dir), PodFile)
	if first != nil {
		os.WriteFile(podPath, first, 0o644)
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		time.Sleep(delay)
		if pod != nil {
			_ = os.WriteFile(podPath, pod, 0o644)
		}
	}()
	if delay == 0 {
		<-written
	}
	dest := filepath.Join(t.TempDir(), "bundle")
	err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test", PodWait: wait}, dest)
	<-written
	if err != nil {
		t.Fatal(err)
	}
	prov, err := ReadProvenance(dest)
	if err != nil {
		t.Fatal(err)
	}
	return dest, prov
}

// verifyLine is what abbench verify prints of the unsigned bundle dest.
func verifyLine(t *testing.T, dest string) string {
	t.Helper()
	checks, failed := CheckAll([]string{dest}, VerifyOptions{SkipSignature: true, AllowUnsigned: true})
	var out strings.Builder
	if err := WriteChecks(&out, checks); err != nil || failed > 0 {
		t.Fatalf("verify: %v, %d failed: %s", err, failed, out.String())
	}
	return out.String()
}

// A run under Kubernetes carries its pod's facts, signed with the rest:
// the file in the bundle (listed in the manifest, so an edit fails
// verification) and the facts in the provenance; facts the launcher
// writes while the bundle waits are taken too.
func TestBundleCarriesThePodFacts(t *testing.T) {
	namespace := rundir.KubernetesNamespace(kubeToken)
	for _, delay := range []time.Duration{0, 300 * time.Millisecond} {
		dest, prov := writeKubeBundle(t, podFixture(t, namespace), delay, 10*time.Second)
		if prov.Pod == nil || prov.PodUnread != "" || prov.Pod.NodeInfo["kubeletVersion"] != "v1.34.4" || !strings.HasPrefix(prov.Pod.ImageID, "sha256:4c1f") {
			t.Fatalf("written after %s: pod %+v, unread %q", delay, prov.Pod, prov.PodUnread)
		}
		if line := verifyLine(t, dest); !strings.Contains(line, dest+": pod abbench-9f86d081884c7d65/run-7xk2p on node abk-node1: pod image sha256:4c1f") {
			t.Fatalf("abbench verify says %q", line)
		}
		flipByte(t, filepath.Join(dest, PodFile))
		if _, err := Verify(dest, VerifyOptions{SkipSignature: true, AllowUnsigned: true}); err == nil || !strings.Contains(err.Error(), PodFile) {
			t.Fatalf("an edited %s verified: %v", PodFile, err)
		}
	}
}

// A run under Kubernetes whose launcher left no facts of its namespace
// (none at all, or an earlier attempt's) says so in its provenance, after
// the bounded wait, and carries no pod file; a run under another launcher
// neither waits nor says anything, whatever lies beside it.
func TestBundleSaysThePodFactsAreMissing(t *testing.T) {
	for name, c := range map[string]struct {
		pod  []byte
		want string
	}{
		"none":    {nil, "no "},
		"earlier": {podFixture(t, "abbench-0000000000000000"), "is of namespace abbench-0000000000000000, not the run's abbench-9f86d081884c7d65"},
	} {
		start := time.Now()
		dest, prov := writeKubeBundle(t, c.pod, 0, 200*time.Millisecond)
		if prov.Pod != nil || !strings.Contains(prov.PodUnread, c.want) || !strings.Contains(prov.PodUnread, "waited 200ms") {
			t.Errorf("%s: pod %+v, unread %q, want %q", name, prov.Pod, prov.PodUnread, c.want)
		}
		if time.Since(start) < 200*time.Millisecond {
			t.Errorf("%s: the bundle did not wait for the launcher", name)
		}
		if _, err := os.Stat(filepath.Join(dest, PodFile)); err == nil {
			t.Errorf("%s: the bundle carries a pod file", name)
		}
		if line := verifyLine(t, dest); !strings.Contains(line, dest+": pod facts missing: "+prov.PodUnread) {
			t.Errorf("%s: abbench verify says %q", name, line)
		}
	}
	dir, s, sb, ev, st := makeRun(t, 4)
	os.WriteFile(filepath.Join(filepath.Dir(dir), PodFile), podFixture(t, "abbench-9f86d081884c7d65"), 0o644)
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test"}, dest); err != nil {
		t.Fatal(err)
	}
	prov, _ := ReadProvenance(dest)
	if _, err := os.Stat(filepath.Join(dest, PodFile)); prov.Pod != nil || prov.PodUnread != "" || err == nil {
		t.Errorf("a run outside Kubernetes: pod %+v, unread %q", prov.Pod, prov.PodUnread)
	}
}

// podOn is the fixture's pod facts with the facts of nodes too.
func podOn(t *testing.T, nodes ...string) []byte {
	t.Helper()
	var p machine.Pod
	json.Unmarshal(podFixture(t, rundir.KubernetesNamespace(kubeToken)), &p)
	p.Nodes = map[string]machine.Node{}
	for _, n := range nodes {
		p.Nodes[n] = machine.Node{NodeInfo: p.NodeInfo}
	}
	data, _ := json.MarshalIndent(p, "", "  ")
	return data
}

// The bundle waits for the facts of every node a rank registered from:
// facts the launcher completes during the wait are taken whole; a node
// still missing after it is said, naming it and its ranks, in the
// provenance and by abbench verify, the facts read kept.
func TestBundleWaitsForEveryRanksNode(t *testing.T) {
	onTwo := []string{"abk-node1", "abk-node2"}
	// The first facts lack node 2; the launcher's next write has it.
	dest, prov := writeKubeBundleOn(t, onTwo, podOn(t, "abk-node1"), podOn(t, "abk-node1", "abk-node2"), 300*time.Millisecond, 10*time.Second)
	if prov.Pod == nil || prov.PodNodesUnread != "" || len(prov.Pod.Nodes) != 2 {
		t.Fatalf("facts completed during the wait: pod %+v, nodes unread %q", prov.Pod, prov.PodNodesUnread)
	}
	if line := verifyLine(t, dest); !strings.Contains(line, "on node abk-node1 (ranks also on abk-node2): ") || strings.Contains(line, "missing") {
		t.Errorf("abbench verify says %q", line)
	}
	start := time.Now()
	dest, prov = writeKubeBundleOn(t, onTwo, podOn(t, "abk-node1"), nil, 0, 200*time.Millisecond)
	want := "no facts of node abk-node2 (ranks ctx-1) in " + PodFile + " (waited 200ms for the launcher)"
	if prov.Pod == nil || prov.PodNodesUnread != want || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("a node never read: pod %v, nodes unread %q, want %q", prov.Pod != nil, prov.PodNodesUnread, want)
	}
	if line := verifyLine(t, dest); !strings.Contains(line, "; node facts missing: "+want) {
		t.Errorf("abbench verify says %q", line)
	}
	// Facts of the controller's node alone (a launcher before the nodes
	// map) stand for the ranks of that node.
	if _, prov = writeKubeBundleOn(t, []string{"abk-node1", "abk-node1"}, podFixture(t, rundir.KubernetesNamespace(kubeToken)), nil, 0, 100*time.Millisecond); prov.PodNodesUnread != "" {
		t.Errorf("ranks on the controller's node: %q", prov.PodNodesUnread)
	}
}

// A node the launcher tried and may not read (a tenant's account:
// nodes are cluster-scoped) is said at once, with the launcher's words,
// never waited for: no wait brings its facts. The facts of a tenant's
// run, in a namespace runs share, are the run's by its name there.
func TestBundleDoesNotWaitForANodeTheLauncherMayNotRead(t *testing.T) {
	var p machine.Pod
	if err := json.Unmarshal(podOn(t, "abk-node1"), &p); err != nil {
		t.Fatal(err)
	}
	p.Namespace, p.Run = "team-a", rundir.KubernetesNamespace(kubeToken)
	p.NodesUnread = map[string]string{"abk-node2": `nodes "abk-node2" is forbidden`}
	data, _ := json.Marshal(p)
	start := time.Now()
	_, prov := writeKubeBundleOn(t, []string{"abk-node1", "abk-node2"}, data, nil, 0, 10*time.Second)
	want := "no facts of node abk-node2 (ranks ctx-1) in " + PodFile + ` (the launcher could not read them: abk-node2: nodes "abk-node2" is forbidden)`
	if prov.Pod == nil || prov.Pod.Namespace != "team-a" || prov.PodNodesUnread != want || time.Since(start) > 5*time.Second {
		t.Fatalf("pod %v, nodes unread %q after %s, want %q at once", prov.Pod, prov.PodNodesUnread, time.Since(start), want)
	}
}
