package kubernetes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// list is what kubectl get -o json says of a run's Job and pods (the
// fields the launcher reads).
type list struct {
	Items []item `json:"items"`
}

type (
	item            = kubeapi.Object
	containerStatus = kubeapi.ContainerStatus
)

// seen is what the watch has seen of the run so far.
type seen struct {
	job      bool   // the Job was there
	pod      string // the newest pod's name
	node     string // its node
	ran      bool   // its container was running
	deletion string // why the pod is being deleted, once it is
	pending  string // why the newest pod was pending, when it last was
	imageID  string // the image by digest, from the pod status
	notes    []string
}

// observe reads one look at the run's Job and pods (those of the
// launcher's label, not the rank pods): the status to show
// (starting with "pending" while no container runs) and, once the run has
// ended, its outcome (without the allocation and times).
func (s *seen) observe(l list) (string, *rundir.Outcome) {
	var job *item
	var pods []item
	for i := range l.Items {
		if l.Items[i].Metadata.Labels[labelLauncher] != "kubernetes" {
			continue // a rank pod or Job the run's controller made
		}
		switch l.Items[i].Kind {
		case "Job":
			job = &l.Items[i]
		case "Pod":
			pods = append(pods, l.Items[i])
		}
	}
	if job != nil {
		s.job = true
	}
	sort.SliceStable(pods, func(i, j int) bool {
		return pods[i].Metadata.CreationTimestamp.Before(pods[j].Metadata.CreationTimestamp)
	})
	if len(pods) == 0 {
		return s.noPod(job)
	}
	p := pods[len(pods)-1]
	if s.pod != "" && p.Metadata.Name != s.pod {
		s.notes = append(s.notes, fmt.Sprintf("pod %s replaced by pod %s", s.where(), p.Metadata.Name))
		s.ran, s.deletion, s.pending = false, "", ""
	}
	s.pod, s.node = p.Metadata.Name, or(p.Spec.NodeName, s.node)
	if p.Metadata.DeletionTimestamp != nil && s.deletion == "" {
		s.deletion = "deleted"
		if c := find(p.Status.Conditions, "DisruptionTarget"); c != nil && c.Status == "True" {
			s.deletion += " (" + joinReason(c.Reason, c.Message) + ")"
		}
	}
	cs := p.Container(containerName)
	if cs != nil && cs.ImageID != "" {
		s.imageID = cs.ImageID
	}
	switch {
	case cs != nil && cs.State.Terminated != nil:
		t := cs.State.Terminated
		// It ran, also when no look saw it running (a run shorter than a poll).
		s.ran = s.ran || t.StartedAt != nil && t.StartedAt.Unix() > 0
		out := s.outcome(t.ExitCode, fmt.Sprintf("container exited %d", t.ExitCode), joinReason(t.Reason, t.Message))
		if t.ExitCode == 0 && s.deletion == "" {
			out.State = launcher.Succeeded
		}
		return "ended", out
	case p.Status.Phase == "Failed":
		return "ended", s.outcome(-1, "failed", joinReason(p.Status.Reason, p.Status.Message))
	case cs != nil && cs.State.Waiting != nil && kubeapi.FatalWaiting[cs.State.Waiting.Reason]:
		return "ended", s.outcome(-1, "cannot start its container", joinReason(cs.State.Waiting.Reason, cs.State.Waiting.Message))
	case job != nil && jobFailed(job) != "":
		return "ended", s.outcome(-1, "job failed", jobFailed(job))
	case cs != nil && cs.State.Running != nil:
		s.ran = true
		return "running on " + s.where(), nil
	}
	s.pending = pendingReason(p, cs)
	return "pending: " + s.pending, nil
}

// noPod is observe for a look that finds no pod of the run.
func (s *seen) noPod(job *item) (string, *rundir.Outcome) {
	switch {
	case s.pod != "":
		return "ended", s.outcome(-1, "is gone", or(s.deletion, "deleted from outside"))
	case job == nil && s.job:
		return "ended", &rundir.Outcome{State: launcher.Failed, ExitCode: -1, Detail: "the run's job was deleted before it had a pod"}
	case job != nil && jobFailed(job) != "":
		return "ended", &rundir.Outcome{State: launcher.Failed, ExitCode: -1, Detail: "job failed before it had a pod: " + jobFailed(job)}
	}
	return "pending: no pod yet", nil
}

// outcome is a failed run's outcome, naming the pod and its node, why,
// and what the watch noted.
func (s *seen) outcome(exit int, what, why string) *rundir.Outcome {
	d := "pod " + s.where() + " " + what
	if why != "" {
		d += ": " + why
	}
	if s.deletion != "" && !strings.HasPrefix(why, "deleted") {
		d += "; the pod was " + s.deletion + " while it ran"
	}
	if !s.ran && s.pending != "" { // --max-pending's cancel says what the pod waited for
		d += "; it never ran, pending: " + s.pending
	}
	for _, n := range s.notes {
		d += "; " + n
	}
	return &rundir.Outcome{State: launcher.Failed, ExitCode: exit, Detail: d}
}

// where names the pod and, once scheduled, its node.
func (s *seen) where() string {
	if s.node == "" {
		return s.pod
	}
	return s.pod + " on node " + s.node
}

// jobFailed is the reason of a Job's Failed condition, "" while it has none.
func jobFailed(job *item) string {
	if c := find(job.Status.Conditions, "Failed"); c != nil && c.Status == "True" {
		return joinReason(c.Reason, c.Message)
	}
	return ""
}

// pendingReason says why a pod's container does not run yet: the
// scheduler's reason while it is unscheduled, the container's after.
func pendingReason(p item, cs *containerStatus) string {
	if c := find(p.Status.Conditions, "PodScheduled"); c != nil && c.Status == "False" {
		return "pod " + p.Metadata.Name + " unscheduled: " + joinReason(c.Reason, c.Message)
	}
	if cs != nil && cs.State.Waiting != nil {
		return "pod " + p.Metadata.Name + " on node " + p.Spec.NodeName + ": " + joinReason(cs.State.Waiting.Reason, cs.State.Waiting.Message)
	}
	return "pod " + p.Metadata.Name + " " + strings.ToLower(or(p.Status.Phase, "created"))
}

var (
	find       = kubeapi.Find
	joinReason = kubeapi.JoinReason
)
