package kubernetes

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/scenarios"
)

// rankPodSpec is what a test reads of a rank Job's pod.
type rankPodSpec struct {
	NodeSelector map[string]string
	Tolerations  []map[string]any
	Volumes      []map[string]any
	Init         []struct {
		Name, Image, ImagePullPolicy string
		Command                      []string
		VolumeMounts                 []struct{ Name, MountPath string }
	} `json:"initContainers"`
	Containers []struct {
		Image, ImagePullPolicy string
		Command                []string
		VolumeMounts           []struct {
			Name, MountPath string
			ReadOnly        bool
		}
		Resources struct{ Requests, Limits map[string]string }
	}
}

func roleJobPod(t *testing.T, kube *scenarios.RoleKubernetes) rankPodSpec {
	t.Helper()
	var own ownPod
	if err := json.Unmarshal([]byte(controllerPod), &own); err != nil {
		t.Fatal(err)
	}
	job, err := rankJob(&own, rankJobSpec{name: "gpu", role: "gpu", token: "t", ranks: 2, kube: kube,
		wrapper: []string{"/usr/local/bin/abbench-rank", "--"}, launchDir: "/runs/x/coord/launch", dir: "/runs/x", deadline: time.Minute, grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(job)
	var j struct {
		Spec struct{ Template struct{ Spec rankPodSpec } }
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	return j.Spec.Template.Spec
}

// A role's kubernetes: keys reach its rank pods: resources (an extended
// one too), tolerations and a node selector; a role of its own image runs
// it, the rank wrapper copied in by an init container of the controller's
// image into an emptyDir, the image's environment kept (--launch-image).
func TestRankJobTakesTheRolesImageResourcesAndPlacement(t *testing.T) {
	secs := int64(30)
	pod := roleJobPod(t, &scenarios.RoleKubernetes{Image: "vllm/vllm-openai@sha256:0123", ImagePullPolicy: "Always",
		Resources:    scenarios.KubeResources{Requests: map[string]string{"cpu": "2", "example.com/gpu": "1"}, Limits: map[string]string{"example.com/gpu": "1"}},
		Tolerations:  []scenarios.KubeToleration{{Key: "gpu", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &secs}},
		NodeSelector: map[string]string{"example.com/gpu-node": "true"}})
	c := pod.Containers[0]
	if c.Image != "vllm/vllm-openai@sha256:0123" || c.ImagePullPolicy != "Always" {
		t.Errorf("rank container image %q (%s): want the role's", c.Image, c.ImagePullPolicy)
	}
	if c.Resources.Requests["example.com/gpu"] != "1" || c.Resources.Requests["cpu"] != "2" || c.Resources.Limits["example.com/gpu"] != "1" {
		t.Errorf("resources %+v", c.Resources)
	}
	if len(pod.Tolerations) != 1 || pod.Tolerations[0]["key"] != "gpu" || pod.Tolerations[0]["tolerationSeconds"] != float64(30) || pod.Tolerations[0]["operator"] != "Exists" {
		t.Errorf("tolerations %v", pod.Tolerations)
	}
	if pod.NodeSelector["example.com/gpu-node"] != "true" {
		t.Errorf("node selector %v", pod.NodeSelector)
	}
	if got := strings.Join(c.Command, " "); got != "/abbench-rank/abbench-rank -- --launch-image /runs/x/coord/launch gpu" {
		t.Errorf("rank command %q: want the wrapper the init container copied", got)
	}
	if len(pod.Init) != 1 || pod.Init[0].Image != "abbench.local/abbench:dev" || strings.Join(pod.Init[0].Command, " ") != "/usr/local/bin/abbench-rank -- --install /abbench-rank" ||
		len(pod.Init[0].VolumeMounts) != 1 || pod.Init[0].VolumeMounts[0].MountPath != "/abbench-rank" {
		t.Errorf("init containers %+v: want the controller's image installing the wrapper", pod.Init)
	}
	var names []string
	for _, v := range pod.Volumes {
		names = append(names, v["name"].(string))
		if v["name"] == wrapperVolume && v["emptyDir"] == nil {
			t.Errorf("volume %v: want an emptyDir", v)
		}
	}
	if strings.Join(names, ",") != "shared-0,"+wrapperVolume {
		t.Errorf("volumes %v", names)
	}
	if n := len(c.VolumeMounts); n != 2 || c.VolumeMounts[1].MountPath != wrapperDir || !c.VolumeMounts[1].ReadOnly {
		t.Errorf("rank mounts %+v", c.VolumeMounts)
	}
	// Resources alone: the controller's image and wrapper, no init container.
	pod = roleJobPod(t, &scenarios.RoleKubernetes{Resources: scenarios.KubeResources{Limits: map[string]string{"example.com/gpu": "3"}}})
	if c := pod.Containers[0]; c.Image != "abbench.local/abbench:dev" || len(pod.Init) != 0 || c.Resources.Limits["example.com/gpu"] != "3" ||
		strings.Join(c.Command, " ") != "/usr/local/bin/abbench-rank -- --launch /runs/x/coord/launch gpu" {
		t.Errorf("a role of resources alone: %+v, init %+v", c, pod.Init)
	}
}

// A rank of its role's own image is held to the digest the image is
// pinned by, or, named by a tag, to the digest the role's first rank pod
// ran; never to the controller's.
func TestRankPodsRunTheirRolesImage(t *testing.T) {
	const pinned = "registry.example/sim@sha256:1111"
	k := &Driver{namespace: "abbench-x", own: &ownPod{}, ranks: map[rankKey]*podRank{}, startWithin: time.Minute}
	pod := `{"metadata": {"name": "%s-%d-a", "uid": "%s%d"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running",
	  "containerStatuses": [{"name": "rank", "imageID": "%s", "state": {"running": {}}}]}}`
	for _, rk := range []struct{ role, image, ran string }{
		{"pinned", pinned, "registry.example/sim@sha256:1111"},
		{"pinned", pinned, "registry.example/sim@sha256:2222"},
		{"tagged", "sim:dev", "sim@sha256:3333"},
		{"tagged", "sim:dev", "sim@sha256:3333"},
		{"tagged", "sim:dev", "sim@sha256:4444"},
	} {
		rank := 0
		for key := range k.ranks {
			if key.role == rk.role {
				rank++
			}
		}
		pr := &podRank{r: ranks.NewRank(rk.role, rank, "", nil), job: rk.role, since: time.Now(), image: rk.image}
		k.ranks[rankKey{rk.role, rank}], k.order = pr, append(k.order, pr)
		k.observe(podEvent(t, rk.role, rank, fmt.Sprintf(pod, rk.role, rank, rk.role, rank, rk.ran)))
	}
	var details []string
	for _, r := range k.checkPodImages() {
		details = append(details, r.Detail)
	}
	want := []string{
		"pinned rank 1: pod pinned-1-a on node n1 ran image registry.example/sim@sha256:2222, not the role's image " + pinned + " it is pinned to",
		"tagged rank 2: pod tagged-2-a on node n1 ran image sim@sha256:4444, but rank 0's pod tagged-0-a on node n1 ran sim@sha256:3333: the role's image sim:dev resolved to two images (pin it by digest, REPO@sha256:...)",
	}
	if strings.Join(details, "\n") != strings.Join(want, "\n") {
		t.Fatalf("reasons\n%s\nwant\n%s", strings.Join(details, "\n"), strings.Join(want, "\n"))
	}
}

// A rank whose pod the scheduler cannot place says why, as the watch last
// saw it, until its pod runs: a rank that never registers is reported
// with the scheduler's reason.
func TestAnUnscheduledRankSaysWhy(t *testing.T) {
	k := &Driver{ranks: map[rankKey]*podRank{}, startWithin: time.Minute}
	pr := &podRank{r: ranks.NewRank("gen", 0, "", nil), job: "gen", since: time.Now()}
	k.ranks[rankKey{"gen", 0}] = pr
	k.observe(podEvent(t, "gen", 0, `{"metadata": {"name": "gen-0-a", "uid": "u"}, "status": {"phase": "Pending",
	  "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/2 nodes are available: 2 Insufficient example.com/gpu."}]}}`))
	if got, want := pr.r.Waiting(), "pod gen-0-a unscheduled: Unschedulable: 0/2 nodes are available: 2 Insufficient example.com/gpu."; got != want {
		t.Fatalf("waiting %q, want %q", got, want)
	}
	k.observe(podEvent(t, "gen", 0, `{"metadata": {"name": "gen-0-a", "uid": "u"}, "spec": {"nodeName": "n2"}, "status": {"phase": "Running",
	  "containerStatuses": [{"name": "rank", "state": {"running": {}}}]}}`))
	if got := pr.r.Waiting(); got != "" {
		t.Fatalf("a running rank still waits: %q", got)
	}
}
