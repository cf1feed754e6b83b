package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// unanswered is how many looks in a row may fail (the API server not
// answering) before the run counts as lost.
const unanswered = 25

type run struct {
	*launcher.Ending // the outcome, Wait and Done
	l                *Launcher
	spec             launcher.Spec
	namespace        string
	marker           string
	started          time.Time
	facts            *nodeFacts // the pod facts written so far
	mu               sync.Mutex
	status           string
	cancelled        bool
}

func (r *run) ID() string           { return r.spec.ID }
func (r *run) AllocationID() string { return "kubernetes-" + r.namespace }

// Status is the run's state as the cluster says, for progress and for
// --max-pending ("pending: ..." while no container runs, with the
// scheduler's reason).
func (r *run) Status() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *run) watch() {
	var s seen
	failures, looks := 0, 0
	ctx := context.Background()
	for {
		// Every pod of the namespace: the run's own (its controller's, by
		// the launcher's label) and the rank pods its controller made.
		args := []string{"get", "jobs,pods", "-n", r.namespace, "-o", "json"}
		if r.l.Tenant != nil {
			args = append(args, "-l", labelMarker+"="+r.marker) // the namespace is shared
		}
		out, err := r.l.kubectl(ctx, nil, args...)
		var l list
		if err == nil {
			err = json.Unmarshal(out, &l)
		}
		if err != nil {
			if failures++; failures >= unanswered {
				r.end(rundir.Outcome{State: launcher.Failed, ExitCode: -1, Detail: "the cluster stopped answering: " + err.Error()}, &s)
				return
			}
			time.Sleep(r.l.poll())
			continue
		}
		failures = 0
		status, res := s.observe(l)
		if res == nil && s.ran && looks%4 == 0 {
			res = r.nodeLost(ctx, &s)
		}
		looks++
		r.mu.Lock()
		r.status = status
		r.mu.Unlock()
		if s.ran {
			r.writeFacts(ctx, &s, podNodes(l), rankImages(l))
		}
		if res != nil {
			r.end(*res, &s)
			return
		}
		time.Sleep(r.l.poll())
	}
}

// nodeLost is the outcome of a run whose pod's node is not Ready: the
// kubelet there no longer answers for the pod, and nothing it reports can
// be believed.
func (r *run) nodeLost(ctx context.Context, s *seen) *rundir.Outcome {
	out, err := r.l.kubectl(ctx, nil, "get", "node", s.node, "-o", "json")
	if err != nil {
		return nil
	}
	var n item
	if json.Unmarshal(out, &n) != nil {
		return nil
	}
	if c := find(n.Status.Conditions, "Ready"); c != nil && c.Status != "True" {
		return s.outcome(-1, "lost its node", "node "+s.node+" NotReady ("+joinReason(c.Reason, c.Message)+")")
	}
	return nil
}

// end tears the run down and records its outcome.
func (r *run) end(res rundir.Outcome, s *seen) {
	if left := r.teardown(); left != "" {
		res.Detail += "; " + left
	}
	if s.imageID != "" {
		res.Detail += "; image " + s.imageID
	}
	r.mu.Lock()
	if r.cancelled {
		res.State = launcher.Cancelled
	}
	res.AllocationID, res.Started, res.Ended = r.AllocationID(), r.started, time.Now()
	r.status = "ended"
	r.mu.Unlock()
	r.End(res)
}

// teardown removes what of the run is left: its namespace, or in a
// tenant's, the objects of its marker.
func (r *run) teardown() string {
	if r.l.Tenant != nil {
		return r.l.tenantTeardown(r.marker)
	}
	return r.l.teardown(r.namespace)
}

// teardown deletes namespace with foreground propagation and waits,
// bounded, until neither it nor any pod of it is left: "" once gone, or
// what is left.
func (l *Launcher) teardown(namespace string) string {
	ctx := context.Background()
	_, err := l.kubectl(ctx, nil, "delete", "namespace", namespace, "--ignore-not-found", "--wait=false", "--cascade=foreground")
	deadline := time.Now().Add(l.grace() + time.Minute)
	for {
		if _, found, gerr := l.get(ctx, "namespace", namespace, "-o", "name"); gerr == nil && !found {
			return ""
		}
		if time.Now().After(deadline) {
			pods, _ := l.kubectl(ctx, nil, "get", "pods", "-n", namespace, "-o", "name")
			left := fmt.Sprintf("namespace %s still there %s after its deletion", namespace, l.grace()+time.Minute)
			if p := strings.Fields(string(pods)); len(p) > 0 {
				left += " with " + strings.Join(p, ", ")
			}
			if err != nil {
				left += " (" + err.Error() + ")"
			}
			return left
		}
		time.Sleep(l.poll())
	}
}

// Cancel deletes the run's namespace: the pod's container gets SIGTERM,
// its controller tears the ranks down within the pod's grace, then the
// kubelet kills what is left. It returns once no pod of the run is left.
func (r *run) Cancel() error {
	select {
	case <-r.Done():
		return nil
	default:
	}
	r.mu.Lock()
	r.cancelled = true
	r.mu.Unlock()
	what := []string{"namespace", r.namespace}
	if r.l.Tenant != nil {
		// The run's Jobs: its pods go with them, and the watch's end
		// removes the rest (tenantTeardown).
		what = []string{"jobs", "-n", r.namespace, "-l", labelMarker + "=" + r.marker}
	}
	if _, err := r.l.kubectl(context.Background(), nil, append(append([]string{"delete"}, what...), "--ignore-not-found", "--wait=false", "--cascade=foreground")...); err != nil {
		return fmt.Errorf("kubernetes launcher: cancelling %s: %w", r.namespace, err)
	}
	wait := 2*r.l.grace() + 2*time.Minute
	if !r.EndsWithin(wait) {
		return fmt.Errorf("kubernetes launcher: namespace %s did not end within %s of its deletion", r.namespace, wait)
	}
	return nil
}

func (r *run) Collect() (string, error) {
	return r.Collected(r.spec.Dir, "kubernetes launcher: run "+r.namespace)
}

// Marker is the value of EnvAllocation in every process of r's pod, for
// tests that look for them.
func Marker(r launcher.Run) string { return r.(*run).marker }
