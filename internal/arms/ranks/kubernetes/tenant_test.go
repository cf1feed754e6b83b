package kubernetes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/scenarios"
)

// tenantControllerPod is a tenant's controller pod as the API server says
// it: no host network, the campaign's claim, the pod's and container's
// securityContext of Pod Security "restricted".
const tenantControllerPod = `{"spec": {
 "securityContext": {"runAsNonRoot": true, "runAsUser": 1000, "runAsGroup": 1000, "seccompProfile": {"type": "RuntimeDefault"}},
 "volumes": [{"name": "campaign", "persistentVolumeClaim": {"claimName": "campaign"}}, {"name": "kube-api-access-x", "projected": {"sources": []}}],
 "containers": [{"image": "abbench.local/abbench:dev", "imagePullPolicy": "IfNotPresent",
   "securityContext": {"runAsNonRoot": true, "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}},
   "volumeMounts": [{"name": "campaign", "mountPath": "/share"}, {"name": "kube-api-access-x", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}]}}`

func rankPodOf(t *testing.T, controller string, kube *scenarios.RoleKubernetes) json.RawMessage {
	t.Helper()
	var own ownPod
	if err := json.Unmarshal([]byte(controller), &own); err != nil {
		t.Fatal(err)
	}
	job, err := rankJob(&own, rankJobSpec{name: "abbench-m1-gen", role: "gen", token: "t", marker: "m1", ranks: 2,
		wrapper: []string{"/usr/local/bin/abbench-rank", "--"}, launchDir: "/share/r/coord/launch", dir: "/share/r",
		deadline: time.Minute, grace: time.Second, kube: kube})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(job)
	var j struct {
		Spec struct {
			Template struct {
				Metadata struct{ Labels map[string]string }
				Spec     json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	if j.Spec.Template.Metadata.Labels[labelMarker] != "m1" {
		t.Errorf("labels %v: want the run's marker, by which the launcher's teardown finds them", j.Spec.Template.Metadata.Labels)
	}
	return j.Spec.Template.Spec
}

// A tenant's rank pods, of the controller's image or of the role's own
// (with the wrapper's init container), pass Pod Security "restricted":
// they copy the controller's securityContext and claim, never the host's
// network; a controller of the host's network and hostPath makes rank
// pods that break it.
func TestTenantRankPodsPassRestricted(t *testing.T) {
	for _, kube := range []*scenarios.RoleKubernetes{nil, {Image: "abbench.local/disaggsim:dev"}} {
		pod := rankPodOf(t, tenantControllerPod, kube)
		if v, err := kubeapi.RestrictedViolations(pod); err != nil || len(v) > 0 {
			t.Errorf("image %+v: the rank pod breaks restricted: %v (%v)\n%s", kube, v, err, pod)
		}
		if !strings.Contains(string(pod), `"persistentVolumeClaim"`) || strings.Contains(string(pod), "kube-api-access") {
			t.Errorf("the rank pod's volumes: want the claim, never the token's\n%s", pod)
		}
	}
	v, _ := kubeapi.RestrictedViolations(rankPodOf(t, controllerPod, &scenarios.RoleKubernetes{Image: "abbench.local/disaggsim:dev"}))
	for _, want := range []string{"host namespaces", "is hostPath", "container abbench-rank: allowPrivilegeEscalation", "container rank: runAsNonRoot"} {
		if !strings.Contains(strings.Join(v, "; "), want) {
			t.Errorf("a host-network controller's rank pod: violations %v lack %q", v, want)
		}
	}
}
