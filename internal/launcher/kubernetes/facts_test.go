package kubernetes

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/machine"
)

// rankPod is a rank pod the run's controller made (no launcher label),
// of node, its container ended failed: the launcher's watch must not take
// it for the run's own pod.
func rankPod(name, node string) string {
	return `{"kind":"Pod","metadata":{"name":"` + name + `","labels":{"abbench.dev/token":"t"},"creationTimestamp":"2026-01-01T00:00:01Z"},"spec":{"nodeName":"` + node +
		`"},"status":{"phase":"Failed","containerStatuses":[{"name":"rank","state":{"terminated":{"exitCode":1}}}]}}`
}

// waitFacts waits until the run's pod facts name every node of want.
func waitFacts(t *testing.T, path string, want ...string) machine.Pod {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var p machine.Pod
		data, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(data, &p) == nil {
			missing := false
			for _, n := range want {
				if _, ok := p.Nodes[n]; !ok {
					missing = true
				}
			}
			if !missing {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod facts %s (%v): want nodes %v", data, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The launcher writes the facts of every node a pod of the run ran on,
// each node read once, the file republished when a rank pod appears on a
// new node; rank pods neither end the run nor stand for its pod.
func TestPodFactsNameEveryNodeOfTheRun(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("node-n2.json", `{"metadata":{"labels":{"kubernetes.io/hostname":"n2"}},"status":{"nodeInfo":{"kubeletVersion":"v1.35.0","machineID":"m2"},"capacity":{"cpu":"8"}}}`)
	write("pods.json", `{"items":[`+job+`,`+running+`,`+rankPod("w-0-a", "n2")+`]}`)
	r := startFake(t, l)
	defer func() { _ = r.Cancel() }()
	path := filepath.Join(r.(*run).spec.Dir, PodFile)
	p := waitFacts(t, path, "n1", "n2")
	if p.Pod != "run-0-x7" || p.Node != "n1" || p.NodeInfo["kubeletVersion"] != "v1.34.4" || p.Nodes["n2"].NodeInfo["kubeletVersion"] != "v1.35.0" ||
		p.Nodes["n2"].Capacity["cpu"] != "8" || p.Nodes["n1"].NodeInfo["kubeletVersion"] != "v1.34.4" {
		t.Fatalf("pod facts %+v", p)
	}
	// A rank pod on a third node: the file is written again, with it.
	write("node-n3.json", `{"status":{"nodeInfo":{"kubeletVersion":"v1.34.4"}}}`)
	write("pods.json", `{"items":[`+job+`,`+running+`,`+rankPod("w-0-a", "n2")+`,`+rankPod("w-1-b", "n3")+`]}`)
	waitFacts(t, path, "n1", "n2", "n3")
	time.Sleep(100 * time.Millisecond) // more looks: no node is read again
	select {
	case <-r.(*run).Done():
		t.Fatal("a rank pod's end ended the run")
	default:
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	for _, n := range []string{"n2", "n3"} { // n1 is also looked at for its Ready condition
		if c := strings.Count(string(calls), "get node "+n+" "); c != 1 {
			t.Errorf("node %s read %d times, want once", n, c)
		}
	}
	if !strings.Contains(string(calls), "get jobs,pods -n abbench-") || regexp.MustCompile(`get jobs,pods .*-l `).Match(calls) {
		t.Errorf("the watch does not list every pod of the namespace:\n%s", calls)
	}
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// rankPodOf is a running rank pod of role on node n1 whose kubelet
// reports image.
func rankPodOf(name, role, image string) string {
	return `{"kind":"Pod","metadata":{"name":"` + name + `","labels":{"abbench.dev/token":"t","abbench.dev/role":"` + role + `"}},"spec":{"nodeName":"n1"},` +
		`"status":{"phase":"Running","containerStatuses":[{"name":"rank","imageID":"` + image + `","state":{"running":{}}}]}}`
}

// The pod facts record, by role, the images its rank pods ran, each
// once, and keep them once the pods are gone (their Jobs deleted at
// teardown): a role's image named by a tag is held between runs.
func TestPodFactsNameEachRolesImages(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	write := func(pods ...string) {
		if err := os.WriteFile(filepath.Join(dir, "pods.json"), []byte(`{"items":[`+strings.Join(append([]string{job, running}, pods...), ",")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(rankPodOf("gen-0-a", "gen", "sim@sha256:11"), rankPodOf("gen-1-b", "gen", "sim@sha256:11"), rankPodOf("ctx-0-c", "ctx", "ab@sha256:ab"))
	r := startFake(t, l)
	defer func() { _ = r.Cancel() }()
	path := filepath.Join(r.(*run).spec.Dir, PodFile)
	want := map[string]string{"gen": "sim@sha256:11", "ctx": "ab@sha256:ab"}
	waitRoleImages(t, path, want)
	write(rankPodOf("gen-0-a", "gen", "sim@sha256:22")) // another image seen; the rest gone
	want["gen"] = "sim@sha256:11,sim@sha256:22"
	waitRoleImages(t, path, want)
}

// waitRoleImages waits until the pod facts at path name want.
func waitRoleImages(t *testing.T, path string, want map[string]string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var p machine.Pod
		data, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(data, &p) == nil && maps.Equal(p.RoleImages, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod facts %s (%v): want role images %v", data, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
