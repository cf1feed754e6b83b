package kubernetes

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// The labels every rank pod carries: the watch finds a run's pods by its
// token, and a pod's rank by its role and the Job's completion index.
const (
	labelToken      = "abbench.dev/token"
	labelRole       = kubeapi.LabelRole
	labelIndex      = "batch.kubernetes.io/job-completion-index"
	rankContainer   = kubeapi.RankContainer
	podEnvPod       = rundir.SchedulerKubernetesPod
	podEnvNode      = rundir.SchedulerKubernetesNode
	podEnvNamespace = rundir.SchedulerKubernetesNamespace
	// PodIPEnv, in every rank pod, is its pod's address (the downward
	// API's status.podIP): without the node's network a rank listens and
	// publishes there for the others to reach it.
	PodIPEnv = rundir.SchedulerKubernetesPodIP
	// labelMarker is the launcher's run marker, on the rank Jobs and pods
	// of a run in a tenant's shared namespace too.
	labelMarker = "abbench.dev/marker"
	// EnvAPI, in the controller's pod, is the API server's address when
	// the Service address the kubelet gives does not route.
	EnvAPI = "ABBENCH_KUBERNETES_API"
)

type object = map[string]any

// ownPod is what a rank pod copies of the controller's pod: its image,
// its hostPath volumes and their mounts, its node affinity and its
// network; and the image digest its container runs.
type ownPod struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		HostNetwork bool              `json:"hostNetwork"`
		Affinity    json.RawMessage   `json:"affinity"`
		Volumes     []json.RawMessage `json:"volumes"`
		// SecurityContext is the pod's (a tenant's: its user, non-root,
		// seccomp), which rank pods copy, as they copy its container's.
		SecurityContext json.RawMessage `json:"securityContext"`
		Containers      []struct {
			Name            string            `json:"name"`
			Image           string            `json:"image"`
			ImagePullPolicy string            `json:"imagePullPolicy"`
			VolumeMounts    []json.RawMessage `json:"volumeMounts"`
			SecurityContext json.RawMessage   `json:"securityContext"`
		} `json:"containers"`
	} `json:"spec"`
	// Status is read for the image the controller's container runs by
	// digest: every rank pod must run the same.
	Status struct {
		ContainerStatuses []kubeapi.ContainerStatus `json:"containerStatuses"`
	} `json:"status"`
}

// rankJobSpec is what one role's Job is made of.
type rankJobSpec struct {
	name, role, token string
	marker            string // the run's (abbench.dev/marker), "" where none
	ranks             int
	wrapper           []string // the rank wrapper, as the controller runs it
	launchDir         string   // the directory of the ranks' launch files
	dir               string   // the working directory: the run's
	deadline, grace   time.Duration
	// kube is the role's kubernetes: keys (nil: none): its image, its
	// resources and where its pods may go.
	kube *scenarios.RoleKubernetes
}

// rankJob is role's Indexed Job: ranks pods at once, each the rank of its
// completion index, never restarted and never replaced (a new attempt is
// abbench's decision), of the controller's image with its hostPath mounts
// and its network (ranks reach each other and the controller's probes
// reach them on the node's addresses, as srun's tasks), bounded by
// deadline and given grace between SIGTERM and SIGKILL. The rank is not
// its container's init (shareProcessNamespace): SIGTERM ends a rank that
// does not handle it, as it does under srun. No service account token:
// only the controller talks to the API server.
func rankJob(own *ownPod, j rankJobSpec) (object, error) {
	if len(own.Spec.Containers) == 0 {
		return nil, fmt.Errorf("the controller's pod has no container to take the image of")
	}
	oc := own.Spec.Containers[0]
	volumes, kept := sharedVolumes(own.Spec.Volumes)
	var mounts []json.RawMessage
	for _, m := range oc.VolumeMounts {
		var named struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(m, &named) == nil && kept[named.Name] {
			mounts = append(mounts, m)
		}
	}
	labels := object{labelToken: labelSafe(j.token), labelRole: labelSafe(j.role)}
	if j.marker != "" {
		labels[labelMarker] = labelSafe(j.marker) // the launcher's teardown finds them by it
	}
	container := object{
		"name": rankContainer, "image": oc.Image, "imagePullPolicy": oc.ImagePullPolicy,
		"command": append(slices.Clone(j.wrapper), "--launch", j.launchDir, j.role), "workingDir": j.dir, "volumeMounts": mounts,
		"env": []object{fieldEnv(podEnvPod, "metadata.name"), fieldEnv(podEnvNode, "spec.nodeName"), fieldEnv(podEnvNamespace, "metadata.namespace"),
			fieldEnv(PodIPEnv, "status.podIP")},
	}
	if present(oc.SecurityContext) {
		container["securityContext"] = oc.SecurityContext
	}
	pod := object{
		"restartPolicy":                 "Never",
		"automountServiceAccountToken":  false,
		"enableServiceLinks":            false,
		"shareProcessNamespace":         true,
		"hostNetwork":                   own.Spec.HostNetwork,
		"dnsPolicy":                     "Default",
		"terminationGracePeriodSeconds": max(int64(math.Ceil(j.grace.Seconds())), 1),
		"volumes":                       volumes,
		"containers":                    []object{container},
	}
	if present(own.Spec.Affinity) {
		pod["affinity"] = own.Spec.Affinity
	}
	if present(own.Spec.SecurityContext) {
		pod["securityContext"] = own.Spec.SecurityContext
	}
	if j.kube != nil {
		roleKeys(pod, container, oc.Image, oc.ImagePullPolicy, j)
	}
	return object{"apiVersion": "batch/v1", "kind": "Job", "metadata": object{"name": j.name, "labels": labels},
		"spec": object{
			"completions": j.ranks, "parallelism": j.ranks, "completionMode": "Indexed",
			"backoffLimit": 0, "podReplacementPolicy": "Failed",
			"activeDeadlineSeconds": max(int64(j.deadline.Seconds()), 1),
			"template":              object{"metadata": object{"labels": labels}, "spec": pod},
		}}, nil
}

// present says whether a field copied from the controller's pod is set.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null" && string(raw) != "{}"
}

// sharedVolumes are the controller pod's volumes of the run directory
// and the shared mounts (hostPath, or a tenant's claim; not its token's
// projection), and their names.
func sharedVolumes(all []json.RawMessage) ([]json.RawMessage, map[string]bool) {
	var out []json.RawMessage
	names := map[string]bool{}
	for _, v := range all {
		var vol struct {
			Name     string          `json:"name"`
			HostPath json.RawMessage `json:"hostPath"`
			Claim    json.RawMessage `json:"persistentVolumeClaim"`
		}
		if json.Unmarshal(v, &vol) == nil && (len(vol.HostPath) > 0 || len(vol.Claim) > 0) {
			out = append(out, v)
			names[vol.Name] = true
		}
	}
	return out, names
}

func fieldEnv(name, path string) object {
	return object{"name": name, "valueFrom": object{"fieldRef": object{"fieldPath": path}}}
}

// jobName is role's Job name: the role's name made a DNS label (lower
// case letters, digits and '-'), short enough for the pods' names the Job
// derives from it.
func jobName(role string) string {
	b := []byte(strings.ToLower(role))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	s := string(b)
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.Trim(s, "-")
}

// labelSafe is s made a valid label value.
func labelSafe(s string) string { return kubeapi.LabelValue(s) }
