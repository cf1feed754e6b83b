package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/machine"
)

// PodFacts are what PodFile records: the pod, its node's facts from the
// node object, the image by digest from the pod status, and the facts of
// every node a pod of the run ran on.
type PodFacts = machine.Pod

// nodeReads is how many times the launcher tries to read a node object
// (a user's account may not be allowed to): the bundle says which nodes'
// facts are missing.
const nodeReads = 3

// nodeFacts is what the watch has read of the run's nodes, each once.
type nodeFacts struct {
	nodes      map[string]machine.Node
	tries      map[string]int
	unread     map[string]string // the nodes every read of failed, with the last error
	written    bool
	imageID    string            // the image the written facts name
	roleImages map[string]string // the rank pods' images the written facts name
	// seen are the images by digest each role's rank pods were seen to
	// run, by role: a pod gone (its role's Job deleted at teardown) keeps
	// its image among the facts.
	seen map[string][]string
}

// writeFacts records, once the container runs, the pod, its node's facts
// from the node object and the image by digest from the pod status; and
// again, atomically, whenever a pod of the run appears on a node not
// read yet. The controller's bundle waits for them (a run's token names
// its namespace), and says so when they, or a node's, never come.
func (r *run) writeFacts(ctx context.Context, s *seen, nodes []string, images map[string][]string) {
	if r.facts == nil {
		r.facts = &nodeFacts{nodes: map[string]machine.Node{}, tries: map[string]int{}, unread: map[string]string{}, seen: map[string][]string{}}
	}
	f := r.facts
	roleImages := f.addImages(images)
	changed := !f.written || f.imageID != s.imageID || !maps.Equal(f.roleImages, roleImages)
	for _, name := range append([]string{s.node}, nodes...) {
		if _, ok := f.nodes[name]; ok || name == "" || f.tries[name] >= nodeReads {
			continue
		}
		f.tries[name]++
		n, err := r.readNode(ctx, name)
		switch {
		case err == nil:
			f.nodes[name], changed = n, true
		case f.tries[name] >= nodeReads:
			// The bundle then stops waiting for the node's facts.
			f.unread[name], changed = kubectlSaid(err), true
		}
	}
	if !changed {
		return
	}
	facts := PodFacts{Namespace: r.namespace, Run: r.runName(), Pod: s.pod, Node: s.node, ImageID: s.imageID, Nodes: maps.Clone(f.nodes), RoleImages: roleImages}
	if len(f.unread) > 0 {
		facts.NodesUnread = maps.Clone(f.unread)
	}
	if n, ok := f.nodes[s.node]; ok {
		facts.NodeInfo, facts.Capacity, facts.Labels = n.NodeInfo, n.Capacity, n.Labels
	}
	data, err := json.MarshalIndent(facts, "", "  ")
	if err == nil && atomicfile.Publish(filepath.Join(r.spec.Dir, PodFile), data, 0o644) == nil {
		f.written, f.imageID, f.roleImages = true, s.imageID, roleImages // a fact left out, which the bundle says, never fatal
	}
}

// rankImages are, by role, the images by digest the rank pods of a look
// at the namespace run (their kubelets' imageID).
func rankImages(l list) map[string][]string {
	byRole := map[string][]string{}
	for _, it := range l.Items {
		role := it.Metadata.Labels[kubeapi.LabelRole]
		if cs := it.Container(kubeapi.RankContainer); it.Kind == "Pod" && role != "" && cs != nil && cs.ImageID != "" {
			byRole[role] = append(byRole[role], cs.ImageID)
		}
	}
	return byRole
}

// addImages adds a look's rank pod images to those seen, and returns
// them all by role, each once, sorted and joined by ","; nil while none
// was seen.
func (f *nodeFacts) addImages(images map[string][]string) map[string]string {
	for role, ids := range images {
		f.seen[role] = slices.Compact(slices.Sorted(slices.Values(append(f.seen[role], ids...))))
	}
	if len(f.seen) == 0 {
		return nil
	}
	out := map[string]string{}
	for role, ids := range f.seen {
		out[role] = strings.Join(ids, ",")
	}
	return out
}

// readNode is what the node object of name says.
func (r *run) readNode(ctx context.Context, name string) (machine.Node, error) {
	out, err := r.l.kubectl(ctx, nil, "get", "node", name, "-o", "json")
	if err != nil {
		return machine.Node{}, err
	}
	var n nodeObject
	if err := json.Unmarshal(out, &n); err != nil {
		return machine.Node{}, fmt.Errorf("node %s: %w", name, err)
	}
	return machine.Node{NodeInfo: n.Status.NodeInfo, Capacity: n.Status.Capacity, Labels: n.Metadata.Labels}, nil
}

// kubectlSaid is what kubectl said of a failed call (never the command
// line: a path of this machine), or the error's words where it said
// nothing.
func kubectlSaid(err error) string {
	var ke *kubectlError
	if errors.As(err, &ke) && ke.Stderr != "" {
		return ke.Stderr
	}
	return err.Error()
}

type nodeObject struct {
	Metadata struct {
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Status struct {
		NodeInfo map[string]string `json:"nodeInfo"`
		Capacity map[string]string `json:"capacity"`
	} `json:"status"`
}

// podNodes are the nodes the pods of a look at the namespace are on,
// each once.
func podNodes(l list) []string {
	var names []string
	for _, it := range l.Items {
		if it.Kind == "Pod" && it.Spec.NodeName != "" {
			names = append(names, it.Spec.NodeName)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(names)))
}
