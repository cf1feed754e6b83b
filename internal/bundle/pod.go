package bundle

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/rundir"
)

// DefaultPodWait is how long Write waits for the pod facts of a run under
// Kubernetes: its launcher writes them within a poll or two of the pod's
// container starting, so only a run shorter than that waits at all.
const DefaultPodWait = 30 * time.Second

// podPoll is how often the wait looks again.
const podPoll = 100 * time.Millisecond

// pod is the facts of the pod a run whose token names a Kubernetes
// namespace ran in, as its launcher recorded them in the arm directory
// (the attempt's parent, which the pod shares), redacted and put in the
// bundle as PodFile, into prov; or, when no facts of that namespace are
// there within the wait, why. The wait is also for the facts of every
// node a rank registered from (the launcher adds a node's as it sees a
// pod there): those still missing then are said. A run under another
// launcher has neither.
func (w *writer) pod(in Input, regs []rundir.Registration, prov *Provenance) error {
	namespace := rundir.KubernetesNamespace(in.Status.Token)
	if namespace == "" {
		return nil
	}
	wait := cmp.Or(in.PodWait, DefaultPodWait)
	deadline := time.Now().Add(wait)
	for {
		p, err := readPod(filepath.Dir(w.run), namespace)
		missing := ""
		if err == nil {
			missing = missingNodes(p, regs)
		}
		switch {
		case err == nil && missing != "" && unreadable(p, regs):
			// The launcher tried every one and may not read them: no wait
			// brings their facts.
			prov.Pod = p
			prov.PodNodesUnread = fmt.Sprintf("%s (the launcher could not read them: %s)", missing, joinUnread(p.NodesUnread))
			return w.putJSON(PodFile, p)
		case err == nil && (missing == "" || time.Now().After(deadline)):
			prov.Pod = p
			if missing != "" {
				prov.PodNodesUnread = fmt.Sprintf("%s (waited %s for the launcher)", missing, wait)
			}
			return w.putJSON(PodFile, p)
		case time.Now().After(deadline):
			prov.PodUnread = fmt.Sprintf("%v (waited %s for the launcher)", err, wait)
			return nil
		}
		time.Sleep(podPoll)
	}
}

// missingNodes names the nodes ranks registered from whose facts p lacks,
// and their ranks; "" when it has every one.
func missingNodes(p *machine.Pod, regs []rundir.Registration) string {
	ranks := map[string][]string{}
	for _, reg := range regs {
		node := reg.Scheduler[rundir.SchedulerKubernetesNode]
		if _, ok := p.Nodes[node]; ok || node == "" || node == p.Node && len(p.NodeInfo) > 0 {
			continue
		}
		ranks[node] = append(ranks[node], reg.Role+"-"+strconv.Itoa(reg.Rank))
	}
	var parts []string
	for _, node := range slices.Sorted(maps.Keys(ranks)) {
		parts = append(parts, fmt.Sprintf("node %s (ranks %s)", node, strings.Join(ranks[node], ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "no facts of " + strings.Join(parts, "; ") + " in " + PodFile
}

// unreadable says whether every node ranks registered from whose facts p
// lacks is one the launcher gave up reading.
func unreadable(p *machine.Pod, regs []rundir.Registration) bool {
	for _, reg := range regs {
		node := reg.Scheduler[rundir.SchedulerKubernetesNode]
		if _, ok := p.Nodes[node]; ok || node == "" || node == p.Node && len(p.NodeInfo) > 0 {
			continue
		}
		if _, gave := p.NodesUnread[node]; !gave {
			return false
		}
	}
	return true
}

// joinUnread is why the launcher could not read each node, by node.
func joinUnread(unread map[string]string) string {
	var parts []string
	for _, node := range slices.Sorted(maps.Keys(unread)) {
		parts = append(parts, node+": "+unread[node])
	}
	return strings.Join(parts, "; ")
}

// readPod reads the pod facts in dir, redacted, when they are namespace's:
// an earlier attempt's, of another namespace, are not this run's.
func readPod(dir, namespace string) (*machine.Pod, error) {
	path := filepath.Join(dir, PodFile)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer func() { _ = root.Close() }() // read only
	data, err := guarded.ReadFile(root, PodFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s of namespace %s: the launcher could not read the pod", path, namespace)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var p machine.Pod
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", path, err)
	}
	if p.Namespace != namespace && p.Run != namespace {
		return nil, fmt.Errorf("%s is of namespace %s, not the run's %s", path, p.Namespace, namespace)
	}
	p = p.Redacted()
	return &p, nil
}

// PodMissing says why a run whose token names a Kubernetes namespace has
// no facts of its pod (PodUnread, or that its provenance records none),
// "" for a run with them or outside Kubernetes.
func (prov *Provenance) PodMissing() string {
	if prov.Pod != nil || rundir.KubernetesNamespace(prov.Token) == "" {
		return ""
	}
	return cmp.Or(prov.PodUnread, "its provenance records none")
}
