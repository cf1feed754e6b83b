package kubernetes

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/kubeapi"
)

// kubeUnanswered is how many lists in a row may fail (the API server not
// answering) before every rank still followed counts as lost.
const kubeUnanswered = 15

// podRank is a rank run by a pod of its role's Job, as the watch sees it.
// The watch alone writes it until the rank ended.
type podRank struct {
	r     *ranks.Rank
	job   string
	since time.Time // its Job was made
	image string    // the role's own image (kubernetes.image), "" for the controller's
	// uid, name and node are the pod's, once one is seen: the first pod
	// of the rank's index is its pod (the Job replaces none).
	uid, name, node string
	running         bool
	deleted         string // why the pod is being deleted, once it is
	pending         string // why it did not run yet, when it last did not
	// started says its container was seen running, or ended after it
	// started. The image it ran by digest (the kubelet's imageID) is the
	// rank's (Rank.SetImage): the status's writes read it while the watch
	// runs.
	started bool
}

// where names the pod and, once scheduled, its node.
func (pr *podRank) where() string {
	switch {
	case pr.name == "":
		return "of job " + pr.job + " (none yet)"
	case pr.node == "":
		return pr.name
	}
	return pr.name + " on node " + pr.node
}

// watch follows every rank pod of the run until ctx ends: a list, then a
// watch from the list's version until the server ends it (every few
// seconds, so the start deadline is checked that often), then again.
func (k *Driver) watch(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		l, err := k.api.List(ctx, k.podsPath(), k.selector())
		if err != nil {
			if failures++; failures >= kubeUnanswered && ctx.Err() == nil {
				k.endAll("could not be watched: " + err.Error())
				return
			}
			pause(ctx, time.Second)
			continue
		}
		failures = 0
		present := map[string]bool{}
		for i := range l.Items {
			present[l.Items[i].Metadata.UID] = true
			k.observe(&l.Items[i])
		}
		k.sweep(func(pr *podRank) bool { return pr.uid != "" && !present[pr.uid] }, "is gone before its container's end was seen")
		k.checkStart(time.Now())
		// Whatever ends the watch (the server's timeout, a version too old,
		// a broken stream), the next list starts over from what is.
		_ = k.api.Watch(ctx, k.podsPath(), k.selector(), l.Metadata.ResourceVersion, 2*time.Second, func(e kubeapi.Event) error {
			k.observe(&e.Object)
			if e.Type == "DELETED" {
				uid := e.Object.Metadata.UID
				k.sweep(func(pr *podRank) bool { return pr.uid == uid }, "is gone before its container's end was seen")
			}
			return nil
		})
		k.checkStart(time.Now())
	}
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// rankOf is the live rank a pod runs, or nil.
func (k *Driver) rankOf(o *kubeapi.Object) *podRank {
	index := o.Metadata.Labels[labelIndex]
	if index == "" {
		index = o.Metadata.Annotations[labelIndex]
	}
	rank, err := strconv.Atoi(index)
	if err != nil {
		return nil
	}
	k.mu.Lock()
	pr := k.ranks[rankKey{o.Metadata.Labels[labelRole], rank}]
	k.mu.Unlock()
	if pr == nil || pr.r.Ended() {
		return nil
	}
	if pr.uid == "" {
		pr.uid = o.Metadata.UID
	}
	if pr.uid != o.Metadata.UID {
		return nil // another pod of the index: not this rank's
	}
	return pr
}

// observe reads one state of a rank pod; a container that ended, a pod
// that failed and one that can never start end their rank.
func (k *Driver) observe(o *kubeapi.Object) {
	pr := k.rankOf(o)
	if pr == nil {
		return
	}
	pr.name = o.Metadata.Name
	if o.Spec.NodeName != "" {
		pr.node = o.Spec.NodeName
	}
	if o.Metadata.DeletionTimestamp != nil && pr.deleted == "" {
		pr.deleted = "deleted"
		if c := kubeapi.Find(o.Status.Conditions, "DisruptionTarget"); c != nil && c.Status == "True" {
			pr.deleted += " (" + kubeapi.JoinReason(c.Reason, c.Message) + ")"
		}
	}
	cs := o.Container(rankContainer)
	pr.seeContainer(cs)
	switch {
	case cs != nil && cs.State.Terminated != nil:
		t := cs.State.Terminated
		k.end(pr, t.ExitCode, "exited with status "+strconv.Itoa(t.ExitCode), kubeapi.JoinReason(t.Reason, t.Message))
	case o.Status.Phase == "Failed":
		k.end(pr, -1, "failed", kubeapi.JoinReason(o.Status.Reason, o.Status.Message))
	case cs != nil && cs.State.Waiting != nil && kubeapi.FatalWaiting[cs.State.Waiting.Reason]:
		k.end(pr, -1, "cannot start its container", kubeapi.JoinReason(cs.State.Waiting.Reason, cs.State.Waiting.Message))
	case cs != nil && cs.State.Running != nil && nodeLost(o) != "":
		k.end(pr, -1, "lost its node", nodeLost(o))
	case cs != nil && cs.State.Running != nil:
		pr.running = true
		pr.r.SetWaiting("")
	default:
		pr.pending = podPending(o, cs)
		pr.r.SetWaiting("pod " + pr.where() + " " + pr.pending)
	}
}

// nodeLost is why a pod whose container runs is not Ready, "" while it
// is. A rank pod has no readiness probe: only the node controller marks
// one not Ready while its container runs, once the node's kubelet stopped
// answering for it, and nothing that kubelet reported since can be
// believed.
func nodeLost(o *kubeapi.Object) string {
	c := kubeapi.Find(o.Status.Conditions, "Ready")
	if c == nil || c.Status != "False" || o.Metadata.DeletionTimestamp != nil {
		return ""
	}
	if why := kubeapi.JoinReason(c.Reason, c.Message); why != "" {
		return "Ready False: " + why
	}
	return "Ready False"
}

// podPending says why a pod's container does not run yet: the
// scheduler's reason while it is unscheduled, the kubelet's after.
func podPending(o *kubeapi.Object, cs *kubeapi.ContainerStatus) string {
	if c := kubeapi.Find(o.Status.Conditions, "PodScheduled"); c != nil && c.Status == "False" {
		return "unscheduled: " + kubeapi.JoinReason(c.Reason, c.Message)
	}
	if cs != nil && cs.State.Waiting != nil {
		return kubeapi.JoinReason(cs.State.Waiting.Reason, cs.State.Waiting.Message)
	}
	if o.Status.Phase == "" {
		return "created"
	}
	return o.Status.Phase
}

// checkStart ends every rank whose pod has not run within the start
// deadline, with what it waited for.
func (k *Driver) checkStart(now time.Time) {
	k.sweep(func(pr *podRank) bool { return !pr.running && now.Sub(pr.since) > k.startWithin },
		fmt.Sprintf("did not start within %s", k.startWithin))
}

// sweep ends, with what, every live rank whose pod matches.
func (k *Driver) sweep(match func(*podRank) bool, what string) {
	k.mu.Lock()
	var ended []*podRank
	for _, pr := range k.ranks {
		if !pr.r.Ended() && match(pr) {
			ended = append(ended, pr)
		}
	}
	k.mu.Unlock()
	for _, pr := range ended {
		why := ""
		if !pr.running {
			why = pr.pending
		}
		k.end(pr, -1, what, why)
	}
}

// endAll ends every live rank with what: the watch cannot say how they are.
func (k *Driver) endAll(what string) {
	k.sweep(func(*podRank) bool { return true }, what)
}

// end records how a rank's pod ended, code its container's exit status
// (-1: none), once: the watch and a Job that could not be made may both
// end a rank. The kubelet reports a rank a signal ended as status
// 128+signal.
func (k *Driver) end(pr *podRank, code int, what, why string) {
	how := "pod " + pr.where() + " " + what
	if why != "" {
		how += " (" + why + ")"
	}
	if pr.deleted != "" {
		how += "; the pod was " + pr.deleted
	}
	pr.r.End(ranks.Exit{Code: code, Signal: ranks.StatusSignal(code), Reason: how})
}
