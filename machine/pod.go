package machine

import (
	"maps"
	"strings"

	"github.com/abbench/abbench/internal/redact"
)

// Pod is what the Kubernetes launcher records of a run's pod once its
// container runs (rundir.PodFile): the pod, its node's facts from the node
// object (nodeInfo, capacity, labels), and the image by digest from the
// pod status. The launcher reads them from the API server, outside the
// pod; they lie in the run directory, where the pod's processes can write.
type Pod struct {
	Namespace string            `json:"namespace"`
	Pod       string            `json:"pod"`
	Node      string            `json:"node"`
	ImageID   string            `json:"image_id"`
	NodeInfo  map[string]string `json:"node_info,omitempty"`
	Capacity  map[string]string `json:"capacity,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
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
// the image it ran by digest, and its node's kubelet, container runtime,
// kernel and OS versions (or that they are unknown). Like the hosts'
// (SoftItems), they may differ between runs with a warning.
func (p *Pod) SoftItems() []string {
	if p == nil {
		return nil
	}
	items := []string{"pod image " + orUnknown(p.ImageID)}
	if len(p.NodeInfo) == 0 { // the launcher could not read the node object
		items = append(items, "node facts unknown")
	}
	for _, k := range podSoft {
		if v := p.NodeInfo[k[0]]; v != "" {
			items = append(items, k[1]+" "+v)
		}
	}
	return items
}

// Describe is the pod in one line for a report: the pod and its node,
// the node's versions and the image by digest.
func (p *Pod) Describe() string {
	return "pod " + p.Namespace + "/" + p.Pod + " on node " + orUnknown(p.Node) + ": " + strings.Join(p.SoftItems(), ", ")
}

// Redacted is p with every URL password replaced (internal/redact), in
// every field: an image may be named by a URL with credentials in it.
func (p Pod) Redacted() Pod {
	for _, s := range []*string{&p.Namespace, &p.Pod, &p.Node, &p.ImageID} {
		*s = redact.URL(*s)
	}
	for _, m := range []*map[string]string{&p.NodeInfo, &p.Capacity, &p.Labels} {
		if *m == nil {
			continue
		}
		*m = maps.Clone(*m)
		for k, v := range *m {
			(*m)[k] = redact.URL(v)
		}
	}
	return p
}
