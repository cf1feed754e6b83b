package kubernetes

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/reason"
)

// controllerPod is what the API server says of a controller's pod: its
// run directory's hostPath volume, its service account token's projection.
const controllerPod = `{"spec": {"hostNetwork": true,
 "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]}}},
 "volumes": [{"name": "shared-0", "hostPath": {"path": "/runs", "type": "Directory"}}, {"name": "kube-api-access-x", "projected": {"sources": []}}],
 "containers": [{"image": "abbench.local/abbench:dev", "imagePullPolicy": "IfNotPresent",
   "volumeMounts": [{"name": "shared-0", "mountPath": "/runs"}, {"name": "kube-api-access-x", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}]}}`

func TestRankJobIsIndexedAndCopiesTheControllersPod(t *testing.T) {
	var own ownPod
	if err := json.Unmarshal([]byte(controllerPod), &own); err != nil {
		t.Fatal(err)
	}
	job, err := rankJob(&own, rankJobSpec{name: jobName("Ctx_Pipe"), role: "Ctx_Pipe", token: "20260101T000000Z-ab", ranks: 4,
		wrapper: []string{"/usr/local/bin/abbench-rank", "--"}, launchDir: "/runs/x/coord/launch", dir: "/runs/x",
		deadline: 90 * time.Second, grace: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(job)
	var j struct {
		Metadata struct{ Name string }
		Spec     struct {
			Completions, Parallelism, BackoffLimit, ActiveDeadlineSeconds int
			CompletionMode, PodReplacementPolicy                          string
			Template                                                      struct {
				Metadata struct{ Labels map[string]string }
				Spec     struct {
					RestartPolicy                                                    string
					AutomountServiceAccountToken, HostNetwork, ShareProcessNamespace bool
					TerminationGracePeriodSeconds                                    int
					Affinity                                                         json.RawMessage
					Volumes                                                          []struct{ Name string }
					Containers                                                       []struct {
						Image, WorkingDir string
						Command           []string
						VolumeMounts      []struct{ Name string }
						Env               []struct{ Name string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	s, pod := j.Spec, j.Spec.Template.Spec
	if j.Metadata.Name != "ctx-pipe" || s.Completions != 4 || s.Parallelism != 4 || s.CompletionMode != "Indexed" || s.BackoffLimit != 0 ||
		s.PodReplacementPolicy != "Failed" || s.ActiveDeadlineSeconds != 90 {
		t.Errorf("job %s: %+v", j.Metadata.Name, s)
	}
	if pod.RestartPolicy != "Never" || pod.AutomountServiceAccountToken || !pod.HostNetwork || !pod.ShareProcessNamespace ||
		pod.TerminationGracePeriodSeconds != 2 || !strings.Contains(string(pod.Affinity), `"n2"`) {
		t.Errorf("pod: %+v", pod)
	}
	c := pod.Containers[0]
	if len(pod.Volumes) != 1 || pod.Volumes[0].Name != "shared-0" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != "shared-0" {
		t.Errorf("volumes %+v, mounts %+v: want the hostPath one alone, never the token's", pod.Volumes, c.VolumeMounts)
	}
	if c.Image != "abbench.local/abbench:dev" || c.WorkingDir != "/runs/x" || strings.Join(c.Command, " ") != "/usr/local/bin/abbench-rank -- --launch /runs/x/coord/launch Ctx_Pipe" {
		t.Errorf("container: %+v", c)
	}
	if len(c.Env) != 4 || c.Env[0].Name != podEnvPod || c.Env[1].Name != podEnvNode || c.Env[3].Name != PodIPEnv {
		t.Errorf("env %+v: want the pod, node, namespace and address from the downward API", c.Env)
	}
	if l := j.Spec.Template.Metadata.Labels; l[labelToken] != "20260101T000000Z-ab" || l[labelRole] != "Ctx_Pipe" {
		t.Errorf("labels %v", l)
	}
	if _, err := rankJob(&ownPod{}, rankJobSpec{name: "x"}); err == nil {
		t.Error("a controller pod without a container: no error")
	}
}

// podEvent is a rank pod of role's index in one state.
func podEvent(t *testing.T, role string, index int, js string) *kubeapi.Object {
	t.Helper()
	var o kubeapi.Object
	if err := json.Unmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	o.Metadata.Labels = map[string]string{labelRole: role, labelIndex: strconv.Itoa(index)}
	return &o
}

// next is the next rank the watch ended.
func next(t *testing.T, exited <-chan *ranks.Rank) *ranks.Rank {
	t.Helper()
	select {
	case p := <-exited:
		return p
	case <-time.After(5 * time.Second):
		t.Fatal("no rank ended")
		return nil
	}
}

func TestPodWatchEndsEachRankNamingItsPod(t *testing.T) {
	exited := make(chan *ranks.Rank, 8)
	k := &Driver{ranks: map[rankKey]*podRank{}, startWithin: time.Minute}
	var rs []*ranks.Rank
	var pods []*podRank
	for rank := range 4 {
		p := ranks.NewRank("w", rank, "", func(r *ranks.Rank) { exited <- r })
		pr := &podRank{r: p, job: "w", since: time.Now()}
		k.ranks[rankKey{"w", rank}] = pr
		rs, pods = append(rs, p), append(pods, pr)
	}
	running := `{"metadata": {"name": "w-0-a", "uid": "u0"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running", "containerStatuses": [{"name": "rank", "state": {"running": {}}}]}}`
	k.observe(podEvent(t, "w", 0, running))
	if rs[0].Ended() || !pods[0].running {
		t.Fatal("a running pod ended its rank")
	}
	// Deleted from outside: the kubelet's SIGTERM ends it, and the end says so.
	k.observe(podEvent(t, "w", 0, `{"metadata": {"name": "w-0-a", "uid": "u0", "deletionTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"nodeName": "n1"},
	  "status": {"phase": "Running", "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "DeletionByTest"}], "containerStatuses": [{"name": "rank", "state": {"running": {}}}]}}`))
	k.observe(podEvent(t, "w", 0, `{"metadata": {"name": "w-0-a", "uid": "u0"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Failed", "containerStatuses": [{"name": "rank", "state": {"terminated": {"exitCode": 143, "reason": "Error"}}}]}}`))
	if p := next(t, exited); p != rs[0] || p.Exit().Code != 143 || p.Exit().Reason != "pod w-0-a on node n1 exited with status 143 (Error); the pod was deleted (DeletionByTest)" {
		t.Fatalf("rank %d: %d, %q", p.Index, p.Exit().Code, p.Exit().Reason)
	}
	if rs[0].Exit().Clean(false) {
		t.Error("a rank ended by SIGTERM before teardown stopped clean")
	}
	if !rs[0].Exit().Clean(true) {
		t.Error("a rank teardown's SIGTERM ended did not stop clean")
	}
	// Another pod of an index that has its pod is not the rank's.
	k.observe(podEvent(t, "w", 1, strings.ReplaceAll(strings.ReplaceAll(running, "w-0-a", "w-1-a"), "u0", "u1")))
	k.observe(podEvent(t, "w", 1, `{"metadata": {"name": "w-1-b", "uid": "other"}, "status": {"phase": "Failed"}}`))
	if rs[1].Ended() {
		t.Fatal("another pod of the index ended the rank")
	}
	// An image the node cannot have ends the rank at once.
	k.observe(podEvent(t, "w", 2, `{"metadata": {"name": "w-2-c", "uid": "u2"}, "spec": {"nodeName": "n2"}, "status": {"phase": "Pending",
	  "containerStatuses": [{"name": "rank", "state": {"waiting": {"reason": "ErrImageNeverPull", "message": "not present"}}}]}}`))
	if p := next(t, exited); p != rs[2] || p.Exit().Code != -1 || p.Exit().Reason != "pod w-2-c on node n2 cannot start its container (ErrImageNeverPull: not present)" {
		t.Fatalf("rank %d: %q", p.Index, p.Exit().Reason)
	}
	// Unscheduled past the start deadline: the scheduler's reason.
	k.observe(podEvent(t, "w", 3, `{"metadata": {"name": "w-3-d", "uid": "u3"}, "status": {"phase": "Pending",
	  "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/2 nodes are available"}]}}`))
	k.checkStart(time.Now())
	if len(exited) != 0 {
		t.Fatal("a pending pod ended its rank within the start deadline")
	}
	k.checkStart(time.Now().Add(2 * time.Minute))
	if p := next(t, exited); p != rs[3] || p.Exit().Reason != "pod w-3-d did not start within 1m0s (unscheduled: Unschedulable: 0/2 nodes are available)" {
		t.Fatalf("rank %d: %q", p.Index, p.Exit().Reason)
	}
	// Its node lost: the node controller marks the running pod not Ready.
	p4 := ranks.NewRank("w", 4, "", func(r *ranks.Rank) { exited <- r })
	k.ranks[rankKey{"w", 4}] = &podRank{r: p4, job: "w", since: time.Now()}
	lost := `{"metadata": {"name": "w-4-e", "uid": "u4"}, "spec": {"nodeName": "n2"}, "status": {"phase": "Running",
	  "conditions": [{"type": "Ready", "status": "%s"}], "containerStatuses": [{"name": "rank", "state": {"running": {}}}]}}`
	k.observe(podEvent(t, "w", 4, fmt.Sprintf(lost, "True")))
	if p4.Ended() {
		t.Fatal("a Ready pod's node counted lost")
	}
	k.observe(podEvent(t, "w", 4, fmt.Sprintf(lost, "False")))
	if p := next(t, exited); p != p4 || p.Exit().Reason != "pod w-4-e on node n2 lost its node (Ready False)" {
		t.Fatalf("rank %d: %q", p.Index, p.Exit().Reason)
	}
	// A pod gone without its end seen.
	k.sweep(func(pr *podRank) bool { return pr.uid == "u1" }, "is gone before its container's end was seen")
	if p := next(t, exited); p != rs[1] || p.Exit().Clean(false) || p.Exit().Reason != "pod w-1-a on node n1 is gone before its container's end was seen" {
		t.Fatalf("rank %d: %q", p.Index, p.Exit().Reason)
	}
}

// Each rank pod's image by digest is recorded with the rank, and a rank
// pod that ran another image than the controller's own pod, or whose
// kubelet reported none, censors the run naming the pod and both digests.
func TestRankPodsRunTheControllersImage(t *testing.T) {
	const own, other = "abbench.local/abbench@sha256:aaaa", "abbench.local/abbench@sha256:bbbb"
	k := &Driver{namespace: "abbench-x", own: &ownPod{}, ranks: map[rankKey]*podRank{}, startWithin: time.Minute}
	if err := json.Unmarshal([]byte(`{"metadata": {"name": "run-7xk2p"}, "spec": {"containers": [{"name": "controller"}]},
	  "status": {"containerStatuses": [{"name": "sidecar", "imageID": "x@sha256:cccc"}, {"name": "controller", "imageID": "`+own+`"}]}}`), k.own); err != nil {
		t.Fatal(err)
	}
	pod := `{"metadata": {"name": "server-%d-a", "uid": "u%d"}, "spec": {"nodeName": "n%d"}, "status": {"phase": "Running",
	  "containerStatuses": [{"name": "rank", "imageID": "%s", "state": {%s}}]}}`
	for rank, image := range []string{own, other, "", own} {
		p := ranks.NewRank("server", rank, "", nil)
		pr := &podRank{r: p, job: "server", since: time.Now()}
		k.ranks[rankKey{"server", rank}], k.order = pr, append(k.order, pr)
		state := `"running": {}`
		if rank == 3 { // never started: censored for that, not for its image
			state = `"waiting": {"reason": "ContainerCreating"}`
			image = other
		}
		k.observe(podEvent(t, "server", rank, fmt.Sprintf(pod, rank, rank, rank, image, state)))
	}
	if got := k.order[0].r.Image() + " " + k.order[1].r.Image(); got != own+" "+other {
		t.Errorf("the ranks record images %q", got)
	}
	var details []string
	for _, r := range k.checkPodImages() {
		if r.Code != reason.ImageMismatch {
			t.Errorf("reason %s, want %s", r.Code, reason.ImageMismatch)
		}
		details = append(details, r.Detail)
	}
	if len(details) != 2 || details[0] != "server rank 1: pod server-1-a on node n1 ran image "+other+", but the controller's pod run-7xk2p ran "+own+
		": the image's name resolved to another image there (pin the image by digest, or load the same image on every node)" ||
		!strings.Contains(details[1], "server rank 2: pod server-2-a on node n2 ran, but its kubelet reported no image digest") {
		t.Fatalf("reasons %q", details)
	}
	// The controller's own digest unknown: nothing can be held to it.
	k.own.Status.ContainerStatuses = nil
	if rs := k.checkPodImages(); len(rs) != 1 || !strings.Contains(rs[0].Detail, "the controller's own pod run-7xk2p reports no image digest") {
		t.Fatalf("reasons %v", rs)
	}
}
