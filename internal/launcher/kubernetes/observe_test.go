package kubernetes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/launcher"
)

// look is one kubectl get of a Job and pods, as JSON items.
func look(t *testing.T, items ...string) list {
	t.Helper()
	var l list
	if err := json.Unmarshal([]byte(`{"items":[`+strings.Join(items, ",")+`]}`), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

const (
	job         = `{"kind":"Job","metadata":{"name":"run","labels":{"abbench.dev/launcher":"kubernetes"}},"status":{}}`
	podMeta     = `"kind":"Pod","metadata":{"name":"run-0-x7","labels":{"abbench.dev/launcher":"kubernetes"},"creationTimestamp":"2026-01-01T00:00:00Z"`
	running     = `{` + podMeta + `},"spec":{"nodeName":"n1"},"status":{"phase":"Running","containerStatuses":[{"name":"controller","imageID":"abbench.local/abbench@sha256:ab","state":{"running":{}}}]}}`
	unscheduled = `{` + podMeta + `},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes are available: 1 Insufficient cpu."}]}}`
)

func exited(code int, deleted string) string {
	return fmt.Sprintf(`{%s%s},"spec":{"nodeName":"n1"},"status":{"phase":"Failed","containerStatuses":[{"name":"controller","state":{"terminated":{"exitCode":%d,"reason":"Error"}}}]}}`,
		podMeta, deleted, code)
}

func TestObserveNamesThePodAndNode(t *testing.T) {
	var s seen
	status, res := s.observe(look(t, job, unscheduled))
	if res != nil || !strings.HasPrefix(status, "pending") || !strings.Contains(status, "Insufficient cpu") || !strings.Contains(status, "run-0-x7") {
		t.Fatalf("unscheduled: %q %+v: want pending with the scheduler's reason", status, res)
	}
	if status, res = s.observe(look(t, job, running)); res != nil || status != "running on run-0-x7 on node n1" {
		t.Fatalf("running: %q %+v", status, res)
	}
	if s.imageID != "abbench.local/abbench@sha256:ab" {
		t.Fatalf("image %q, want the digest of the pod status", s.imageID)
	}
	_, res = s.observe(look(t, job, exited(3, "")))
	if res == nil || res.State != launcher.Failed || res.ExitCode != 3 || !strings.Contains(res.Detail, "pod run-0-x7 on node n1 container exited 3") {
		t.Fatalf("exit 3: %+v", res)
	}
}

func TestObserveSucceedsOnlyUndisturbed(t *testing.T) {
	var s seen
	s.observe(look(t, job, running))
	if _, res := s.observe(look(t, job, exited(0, ""))); res == nil || res.State != launcher.Succeeded {
		t.Fatalf("exit 0: %+v", res)
	}
	// A pod deleted while it ran whose controller still exits 0 is no success.
	var d seen
	d.observe(look(t, job, running))
	_, res := d.observe(look(t, job, exited(0, `,"deletionTimestamp":"2026-01-01T00:01:00Z"`)))
	if res == nil || res.State != launcher.Failed || !strings.Contains(res.Detail, "deleted while it ran") {
		t.Fatalf("deleted, exit 0: %+v", res)
	}
}

func TestObserveAPodGoneMidRun(t *testing.T) {
	var s seen
	s.observe(look(t, job, running))
	_, res := s.observe(look(t, job))
	if res == nil || res.State != launcher.Failed || res.ExitCode != -1 || !strings.Contains(res.Detail, "pod run-0-x7 on node n1 is gone") {
		t.Fatalf("pod gone: %+v", res)
	}
}

func TestObserveFaultsThatNeverMend(t *testing.T) {
	for name, tc := range map[string]struct{ item, want string }{
		"image": {`{` + podMeta + `},"spec":{"nodeName":"n1"},"status":{"phase":"Pending","containerStatuses":[{"name":"controller","state":{"waiting":{"reason":"ErrImageNeverPull","message":"image not present"}}}]}}`,
			"pod run-0-x7 on node n1 cannot start its container: ErrImageNeverPull: image not present"},
		"evicted": {`{` + podMeta + `},"spec":{"nodeName":"n1"},"status":{"phase":"Failed","reason":"Evicted","message":"low on memory"}}`,
			"pod run-0-x7 on node n1 failed: Evicted: low on memory"},
	} {
		var s seen
		_, res := s.observe(look(t, job, tc.item))
		if res == nil || res.State != launcher.Failed || res.Detail != tc.want {
			t.Errorf("%s: %+v, want detail %q", name, res, tc.want)
		}
	}
	var s seen
	_, res := s.observe(look(t, `{"kind":"Job","metadata":{"labels":{"abbench.dev/launcher":"kubernetes"}},"status":{"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded","message":"Job was active longer than specified deadline"}]}}`))
	if res == nil || !strings.Contains(res.Detail, "DeadlineExceeded") {
		t.Fatalf("deadline: %+v", res)
	}
}

// TestObserveAPendingPodRemovedSaysWhy: a pod removed before it ran (the
// run cancelled after --max-pending) keeps the scheduler's reason.
func TestObserveAPendingPodRemovedSaysWhy(t *testing.T) {
	var s seen
	s.observe(look(t, job, unscheduled))
	_, res := s.observe(look(t, job))
	if res == nil || !strings.Contains(res.Detail, "it never ran, pending: pod run-0-x7 unscheduled: Unschedulable: 0/1 nodes are available") {
		t.Fatalf("outcome %+v, want the scheduler's reason", res)
	}
}

// TestObserveARunShorterThanAPoll: a container no look saw running has
// still run once it terminated after starting, and is not called pending.
func TestObserveARunShorterThanAPoll(t *testing.T) {
	var s seen
	s.observe(look(t, job, unscheduled))
	done := strings.Replace(exited(1, ""), `"reason":"Error"`, `"reason":"Error","startedAt":"2026-01-01T00:00:01Z"`, 1)
	if _, res := s.observe(look(t, job, done)); res == nil || strings.Contains(res.Detail, "never ran") || !s.ran {
		t.Fatalf("outcome %+v: a container that started and exited ran", res)
	}
	var never seen
	never.observe(look(t, job, unscheduled))
	startError := strings.Replace(exited(128, ""), `"reason":"Error"`, `"reason":"StartError","startedAt":"1970-01-01T00:00:00Z"`, 1)
	if _, res := never.observe(look(t, job, startError)); res == nil || !strings.Contains(res.Detail, "never ran") {
		t.Fatalf("outcome %+v: a container that never started did not run", res)
	}
}
