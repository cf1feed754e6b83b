package machine

import (
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/redact"
)

// Pod is what the Kubernetes launcher records of a run's pod once its
// container runs (rundir.PodFile): the pod, its node's facts from the node
// object (nodeInfo, capacity, labels), the image by digest from the pod
// status, and the facts of every node a pod of the run ran on (the rank
// pods' too). The launcher reads them from the API server, outside the
// pod; they lie in the run directory, where the pod's processes can write.
type Pod struct {
	Namespace string `json:"namespace"`
	// Run is the run's name in a tenant's namespace, shared by runs (its
	// Job's: the namespace a run has of its own otherwise, which its
	// launch token names); "" in a namespace of the run's own.
	Run      string            `json:"run,omitempty"`
	Pod      string            `json:"pod"`
	Node     string            `json:"node"`
	ImageID  string            `json:"image_id"`
	NodeInfo map[string]string `json:"node_info,omitempty"`
	Capacity map[string]string `json:"capacity,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	// Nodes are the facts of every node a pod of the run ran on, by node
	// name, the controller's node among them.
	Nodes map[string]Node `json:"nodes,omitempty"`
	// RoleImages are, by role, the images by digest its rank pods ran
	// (their kubelets' imageID, each once, sorted, joined by ","): a
	// role of its own image named by a tag may resolve to another image
	// in another run.
	RoleImages map[string]string `json:"role_images,omitempty"`
	// NodesUnread are the nodes whose object the launcher tried and
	// failed to read every time (a tenant's account may not read nodes,
	// which are cluster-scoped), with why: their facts will not come.
	NodesUnread map[string]string `json:"nodes_unread,omitempty"`
}

// Node is what the launcher reads of one node object.
type Node struct {
	NodeInfo map[string]string `json:"node_info,omitempty"`
	Capacity map[string]string `json:"capacity,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
}

// podSoft are the node's software versions that must match between runs
// (nodeInfo's keys, as a reviewer reads them): machine-unique ids
// (machineID, systemUUID, bootID) differ between any two nodes and are
// never among them.
var podSoft = [][2]string{
	{"kubeletVersion", "kubelet"}, {"containerRuntimeVersion", "container runtime"}, {"kubeProxyVersion", "kube-proxy"},
	{"kernelVersion", "node kernel"}, {"osImage", "node OS"},
}

// SoftItems are the pod's softer facts, one by one (none for a nil pod):
// the image it ran by digest, each role's rank pods' images, and the kubelet, container runtime, kernel
// and OS versions of its node and of every other node of the run (each
// distinct version once, whichever node has it, so runs alike but for
// which rank ran where give the same items), or that a node's are
// unknown. Like the hosts' (SoftItems), they may differ between runs with
// a warning.
func (p *Pod) SoftItems() []string {
	if p == nil {
		return nil
	}
	infos := []map[string]string{p.NodeInfo}
	for _, name := range slices.Sorted(maps.Keys(p.Nodes)) {
		infos = append(infos, p.Nodes[name].NodeInfo)
	}
	items := []string{"pod image " + orUnknown(p.ImageID)}
	if slices.ContainsFunc(infos, func(info map[string]string) bool { return len(info) == 0 }) { // the launcher could not read a node object
		items = append(items, "node facts unknown")
	}
	for _, role := range slices.Sorted(maps.Keys(p.RoleImages)) {
		items = append(items, "role "+role+" image "+p.RoleImages[role])
	}
	for _, k := range podSoft {
		var values []string
		for _, info := range infos {
			if v := info[k[0]]; v != "" {
				values = append(values, v)
			}
		}
		for _, v := range slices.Compact(slices.Sorted(slices.Values(values))) {
			items = append(items, k[1]+" "+v)
		}
	}
	return items
}

// RankNodes are the nodes of the run other than the controller's, sorted.
func (p *Pod) RankNodes() []string {
	var names []string
	for name := range p.Nodes {
		if name != p.Node {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Describe is the pod in one line for a report: the pod and its node,
// the run's other nodes, the nodes' versions and the image by digest.
func (p *Pod) Describe() string {
	where := "pod " + p.Namespace + "/" + p.Pod + " on node " + orUnknown(p.Node)
	if others := p.RankNodes(); len(others) > 0 {
		where += " (ranks also on " + strings.Join(others, ", ") + ")"
	}
	return where + ": " + strings.Join(p.SoftItems(), ", ")
}

// Redacted is p with every URL password replaced (internal/redact), in
// every field: an image may be named by a URL with credentials in it.
func (p Pod) Redacted() Pod {
	for _, s := range []*string{&p.Namespace, &p.Pod, &p.Node, &p.ImageID} {
		*s = redact.URL(*s)
	}
	redactMaps(&p.NodeInfo, &p.Capacity, &p.Labels, &p.RoleImages, &p.NodesUnread)
	if p.Nodes != nil {
		nodes := make(map[string]Node, len(p.Nodes))
		for name, n := range p.Nodes {
			redactMaps(&n.NodeInfo, &n.Capacity, &n.Labels)
			nodes[redact.URL(name)] = n
		}
		p.Nodes = nodes
	}
	return p
}

// redactMaps replaces each map by a copy with every URL password replaced.
func redactMaps(ms ...*map[string]string) {
	for _, m := range ms {
		if *m == nil {
			continue
		}
		*m = maps.Clone(*m)
		for k, v := range *m {
			(*m)[k] = redact.URL(v)
		}
	}
}
