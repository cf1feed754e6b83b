package kubernetes

import (
	"context"
	"encoding/json"
)

// ClusterUp reports whether the cluster kubectl finds answers with a node
// Ready to run pods, or why not.
func ClusterUp() (bool, string) {
	l := &Launcher{}
	out, err := l.kubectl(context.Background(), nil, "get", "nodes", "-o", "json")
	if err != nil {
		return false, err.Error()
	}
	var nodes struct {
		Items []item `json:"items"`
	}
	if err := json.Unmarshal(out, &nodes); err != nil {
		return false, "kubectl get nodes: " + err.Error()
	}
	for _, n := range nodes.Items {
		if c := find(n.Status.Conditions, "Ready"); c != nil && c.Status == "True" {
			return true, ""
		}
	}
	return false, "no node is Ready"
}
