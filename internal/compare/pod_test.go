package compare

import (
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/machine"
)

const kubeToken = "20261201T120000Z-kube9f86d081884c7d65-0123456789ab"

// kubeRuns are runs under Kubernetes on one machine, run i in the pod
// pods[i%len(pods)] (nil: its bundle says why it has no pod facts).
func kubeRuns(pods ...*machine.Pod) []Run {
	facts := machine.Facts{Host: "run-7xk2p", CPUModel: "Xeon", Cores: 16, Kernel: "6.1.0-40-cloud-amd64"}
	runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
	for i := range runs {
		runs[i].Machines = []machine.Facts{facts}
		runs[i].prov = &bundle.Provenance{Token: kubeToken, Machines: runs[i].Machines, Pod: pods[i%len(pods)]}
		if runs[i].prov.Pod == nil {
			runs[i].prov.PodUnread = "no kube-pod.json of namespace abbench-9f86d081884c7d65: the launcher could not read the pod"
		}
	}
	return runs
}

func fixturePod(t *testing.T) *machine.Pod {
	t.Helper()
	var p machine.Pod
	data, err := os.ReadFile("../../testdata/kube/kube-pod.json")
	if err == nil {
		err = json.Unmarshal(data, &p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

// with is p on another node (its own ids) with the node info set.
func with(p *machine.Pod, set map[string]string) *machine.Pod {
	q := *p
	q.Node, q.NodeInfo = "abk-node2", maps.Clone(p.NodeInfo)
	q.NodeInfo["machineID"], q.NodeInfo["systemUUID"], q.NodeInfo["bootID"] = "m2", "u2", "b2"
	for k, v := range set {
		if k == "image" {
			q.ImageID = v
			continue
		}
		q.NodeInfo[k] = v
	}
	return &q
}

// Runs whose pods ran another image digest, or on nodes with another
// kubelet, kernel or container runtime, are warned about as softer facts,
// naming what differs; pods alike but for their nodes' ids are not; the
// report's machine line names the pod.
func TestPodFactsAreHeldEqual(t *testing.T) {
	p := fixturePod(t)
	for name, set := range map[string]map[string]string{
		"image":   {"image": "sha256:0000000000000000000000000000000000000000000000000000000000000000"},
		"kubelet": {"kubeletVersion": "v1.35.0"},
		"kernel":  {"kernelVersion": "6.12.0-1-amd64"},
		"runtime": {"containerRuntimeVersion": "containerd://2.1.4"},
	} {
		r := Compare(kubeRuns(p, with(p, set)), Options{})
		w := strings.Join(r.Warnings, "\n")
		if r.Verdict == Censored || !strings.Contains(w, "softer facts") {
			t.Errorf("another %s: %s %v", name, r.Verdict, r.Warnings)
		}
		for _, v := range set {
			if !strings.Contains(w, v) {
				t.Errorf("another %s: the warning does not name %s: %s", name, v, w)
			}
		}
	}
	r := Compare(kubeRuns(p, with(p, nil)), Options{})
	if strings.Contains(strings.Join(r.Warnings, "\n"), "softer") {
		t.Errorf("pods alike on two nodes: %v", r.Warnings)
	}
	if !strings.Contains(r.Machine, "pod abbench-9f86d081884c7d65/run-7xk2p on node abk-node1: pod image sha256:4c1f") || !strings.Contains(r.Machine, "kubelet v1.34.4") {
		t.Errorf("machine line %q", r.Machine)
	}
}

// A run under Kubernetes without its pod's facts is said, naming the run
// and why, never taken as equal to the others.
func TestMissingPodFactsAreSaid(t *testing.T) {
	p := fixturePod(t)
	for name, runs := range map[string][]Run{"one run": kubeRuns(p, p, p, nil), "every run": kubeRuns(nil)} {
		r := Compare(runs, Options{})
		w := strings.Join(r.Warnings, "\n")
		if !strings.Contains(w, "ran in Kubernetes namespace abbench-9f86d081884c7d65 without its pod's facts (no kube-pod.json") {
			t.Errorf("%s: %v", name, r.Warnings)
		}
		if name == "one run" && !strings.Contains(w, "softer facts (drivers, clocks, kernel, governor, memory, image or the pod's node): pod facts missing in 1 run(s); ") {
			t.Errorf("%s: the missing facts are not a variant of the softer facts: %s", name, w)
		}
	}
	runs := kubeRuns(p)
	runs[0].prov.Pod = nil
	if w := strings.Join(Compare(runs, Options{}).Warnings, "\n"); !strings.Contains(w, runs[0].Path+" ran in Kubernetes namespace") || !strings.Contains(w, "its provenance records none") {
		t.Errorf("a provenance with neither facts nor why: %s", w)
	}
	if w := strings.Join(Compare(kubeRuns(p), Options{}).Warnings, "\n"); strings.Contains(w, "pod's facts") {
		t.Errorf("every pod recorded: %s", w)
	}
}

// onNodes is p with the facts of its node and of a rank's node2, whose
// kubelet is kubelet2.
func onNodes(p *machine.Pod, kubelet2 string) *machine.Pod {
	q := *p
	n2 := machine.Node{NodeInfo: maps.Clone(p.NodeInfo)}
	n2.NodeInfo["kubeletVersion"], n2.NodeInfo["machineID"] = kubelet2, "m2"
	q.Nodes = map[string]machine.Node{p.Node: {NodeInfo: p.NodeInfo}, "abk-node2": n2}
	return &q
}

// Every node of a run is held, as its controller's node is: a rank's
// node with another kubelet is warned about, naming it; rank nodes alike
// but for their ids are not; a run whose bundle lacks a rank node's
// facts is said, and is a variant of its own.
func TestEveryNodesFactsAreHeldEqual(t *testing.T) {
	p := fixturePod(t)
	r := Compare(kubeRuns(onNodes(p, "v1.34.4"), onNodes(p, "v1.35.0")), Options{})
	if w := strings.Join(r.Warnings, "\n"); r.Verdict == Censored || !strings.Contains(w, "softer facts") || !strings.Contains(w, "kubelet v1.35.0") {
		t.Errorf("a rank node with another kubelet: %s %v", r.Verdict, r.Warnings)
	}
	if w := strings.Join(Compare(kubeRuns(onNodes(p, "v1.34.4"), p), Options{}).Warnings, "\n"); strings.Contains(w, "softer") {
		t.Errorf("rank nodes alike: %s", w)
	}
	runs := kubeRuns(onNodes(p, "v1.34.4"))
	runs[0].prov.PodNodesUnread = "no facts of node abk-node3 (ranks ctx-1) in kube-pod.json (waited 30s for the launcher)"
	w := strings.Join(Compare(runs, Options{}).Warnings, "\n")
	if !strings.Contains(w, runs[0].Path+" ran ranks in Kubernetes namespace abbench-9f86d081884c7d65 on nodes without their facts (no facts of node abk-node3") ||
		!strings.Contains(w, "rank node facts missing in 1 run(s)") {
		t.Errorf("a rank node's facts missing: %s", w)
	}
}
