package machine

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// readPod reads the pod facts fixture: what the Kubernetes launcher writes
// of a real node object (kubelet 1.34 on containerd).
func readPod(t *testing.T) (Pod, []byte) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/kube/kube-pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var p Pod
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p, data
}

// The fixture is the Pod type's own output, byte for byte, as the
// launcher writes it: no field of it is lost in reading.
func TestPodFixtureIsThePodType(t *testing.T) {
	p, data := readPod(t)
	again, _ := json.MarshalIndent(p, "", "  ")
	if !bytes.Equal(append(again, '\n'), data) {
		t.Fatalf("the fixture does not round-trip through Pod:\n%s", again)
	}
}

// A pod's softer facts are its image by digest and its node's versions;
// the node's machine-unique ids are never among them, so two nodes alike
// but for their ids give the same facts, and another kubelet or runtime
// differs.
func TestPodSoftItemsHoldVersionsNotIds(t *testing.T) {
	p, _ := readPod(t)
	items := p.SoftItems()
	want := []string{"pod image " + p.ImageID, "kubelet v1.34.4", "container runtime containerd://1.7.24", "node kernel 6.1.0-40-cloud-amd64", "node OS Debian GNU/Linux 12 (bookworm)"}
	if !slices.Equal(items, want) {
		t.Fatalf("soft items %q, want %q", items, want)
	}
	other := p
	other.NodeInfo = map[string]string{}
	for k, v := range p.NodeInfo {
		other.NodeInfo[k] = v
	}
	other.Node = "abk-node2"
	other.NodeInfo["machineID"], other.NodeInfo["systemUUID"], other.NodeInfo["bootID"] = "other", "other", "other"
	if !slices.Equal(other.SoftItems(), items) {
		t.Errorf("another node's ids changed the soft items: %q", other.SoftItems())
	}
	other.NodeInfo["kubeletVersion"], other.NodeInfo["containerRuntimeVersion"] = "v1.35.0", "containerd://2.1.4"
	if got := strings.Join(other.SoftItems(), ", "); !strings.Contains(got, "kubelet v1.35.0") || !strings.Contains(got, "container runtime containerd://2.1.4") {
		t.Errorf("another kubelet and runtime: %s", got)
	}
	other.NodeInfo, other.ImageID = nil, ""
	if got := strings.Join(other.SoftItems(), ", "); got != "pod image unknown, node facts unknown" {
		t.Errorf("a pod whose node could not be read: %q", got)
	}
	var none *Pod
	if none.SoftItems() != nil {
		t.Error("a pod never recorded has soft items")
	}
	if d := p.Describe(); !strings.HasPrefix(d, "pod abbench-9f86d081884c7d65/run-7xk2p on node abk-node1: pod image sha256:4c1f") || strings.Contains(d, p.NodeInfo["machineID"]) {
		t.Errorf("describe %q", d)
	}
}

// Redacted replaces a URL password in every field, the maps too, and
// leaves the original as it was.
func TestPodRedacted(t *testing.T) {
	p, _ := readPod(t)
	p.ImageID = "https://u:pw-5150@reg/x@sha256:ab"
	p.Labels["registry"] = "https://u:pw-5150@reg"
	r := p.Redacted()
	if data, _ := json.Marshal(r); strings.Contains(string(data), "pw-5150") {
		t.Fatalf("redacted pod holds the password: %s", data)
	}
	if !strings.Contains(p.Labels["registry"], "pw-5150") {
		t.Fatal("Redacted changed the original's labels")
	}
}

// withNodes is p with the facts of its own node and of node2, whose
// kubelet is kubelet2, as the launcher writes them.
func withNodes(p Pod, kubelet2 string) Pod {
	n2 := Node{NodeInfo: maps.Clone(p.NodeInfo)}
	n2.NodeInfo["kubeletVersion"], n2.NodeInfo["machineID"], n2.NodeInfo["bootID"] = kubelet2, "m2", "b2"
	p.Nodes = map[string]Node{p.Node: {NodeInfo: p.NodeInfo, Capacity: p.Capacity, Labels: p.Labels}, "abk-node2": n2}
	return p
}

// Every node of the run is held: another kubelet on a rank's node is
// among the soft items; which rank ran on which node, and the nodes'
// ids, are not; a node whose object could not be read is said.
func TestPodSoftItemsHoldEveryNode(t *testing.T) {
	p, _ := readPod(t)
	alike := withNodes(p, "v1.34.4")
	if !slices.Equal(alike.SoftItems(), p.SoftItems()) {
		t.Errorf("a rank node alike but for its ids: %q, want %q", alike.SoftItems(), p.SoftItems())
	}
	other := withNodes(p, "v1.35.0")
	if got := strings.Join(other.SoftItems(), ", "); !strings.Contains(got, "kubelet v1.34.4, kubelet v1.35.0") {
		t.Errorf("a rank node with another kubelet: %s", got)
	}
	swapped := other
	swapped.Node, swapped.NodeInfo = "abk-node2", other.Nodes["abk-node2"].NodeInfo
	if !slices.Equal(swapped.SoftItems(), other.SoftItems()) {
		t.Errorf("the controller on the other node: %q, want %q", swapped.SoftItems(), other.SoftItems())
	}
	unread := withNodes(p, "v1.34.4")
	unread.Nodes["abk-node3"] = Node{}
	if got := strings.Join(unread.SoftItems(), ", "); !strings.Contains(got, "node facts unknown") {
		t.Errorf("a node not read: %s", got)
	}
	if d := other.Describe(); !strings.Contains(d, "on node abk-node1 (ranks also on abk-node2): ") || strings.Contains(d, "m2") {
		t.Errorf("describe %q", d)
	}
	other.Nodes["abk-node2"] = Node{Labels: map[string]string{"registry": "https://u:pw-5150@reg"}}
	if data, _ := json.Marshal(other.Redacted()); strings.Contains(string(data), "pw-5150") {
		t.Errorf("a rank node's labels keep a password: %s", data)
	}
}

// Each role's rank pod images are softer facts of their own: a role of
// its own image whose tag resolved to another image in another run
// differs, and a password in an image's name is redacted.
func TestPodSoftItemsHoldEachRolesImages(t *testing.T) {
	p, _ := readPod(t)
	a, b := p, p
	a.RoleImages = map[string]string{"gen": "sim@sha256:11", "ctx": p.ImageID}
	b.RoleImages = map[string]string{"gen": "sim@sha256:22", "ctx": p.ImageID}
	got := strings.Join(a.SoftItems(), ", ")
	if !strings.Contains(got, "role ctx image "+p.ImageID+", role gen image sim@sha256:11") || slices.Equal(a.SoftItems(), b.SoftItems()) {
		t.Errorf("role images: %s; another run's %s", got, strings.Join(b.SoftItems(), ", "))
	}
	a.RoleImages["gen"] = "https://u:pw-5150@reg/sim@sha256:11"
	if data, _ := json.Marshal(a.Redacted()); strings.Contains(string(data), "pw-5150") {
		t.Errorf("a role's image keeps a password: %s", data)
	}
}
