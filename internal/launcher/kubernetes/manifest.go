package kubernetes

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// The labels and annotations every object of a run carries: the guard
// finds abbench's namespaces by the label, and deletes one whose expiry
// has passed (its abbench was killed, and nothing else would).
const (
	labelRun         = "abbench.dev/run"
	labelLauncher    = "abbench.dev/launcher"
	annotationExpiry = "abbench.dev/expires"
	jobName          = "run"
	containerName    = "controller"
	// serviceAccount is the controller's, with the Role rankRules and its binding.
	serviceAccount = "abbench-controller"
)

// rankRules are all the controller of rank pods may do, in its own
// namespace: make, read and delete the Jobs of its roles, and follow their
// pods (list and watch; their logs are the run directory's files).
var rankRules = []object{
	{"apiGroups": []string{"batch"}, "resources": []string{"jobs"}, "verbs": []string{"create", "get", "list", "delete"}},
	{"apiGroups": []string{""}, "resources": []string{"pods"}, "verbs": []string{"get", "list", "watch"}},
}

type object = map[string]any

// manifest is the run's Namespace and Job as one kubectl List (with
// RankPods, the controller's account between them): a Job of
// one pod (not Indexed: an indexed pod's hostname is JOB-INDEX, and a
// rank's registration should name its pod) that runs script (the run's launch script, on the shared
// run directory) with the run directory and every mount shared from the
// host at the same path, never restarted (a new attempt is abbench's
// decision, not the kubelet's), ended by the API server after
// activeDeadlineSeconds and removed ttlSecondsAfterFinished after.
func (l *Launcher) manifest(spec launcher.Spec, namespace, marker, script string, now time.Time) ([]byte, error) {
	labels := object{labelRun: labelValue(spec.ID), labelLauncher: "kubernetes", labelMarker: marker}
	deadline := l.activeDeadline()
	grace := max(int64(math.Ceil(l.grace().Seconds())), 1)
	expiry := object{annotationExpiry: now.Add(deadline + l.grace() + time.Minute).UTC().Format(time.RFC3339)}
	volumes, mounts, err := l.volumes(spec.Dir)
	if err != nil {
		return nil, err
	}
	pod := object{
		"restartPolicy":                 "Never",
		"automountServiceAccountToken":  false,
		"enableServiceLinks":            false,
		"dnsPolicy":                     "Default",
		"terminationGracePeriodSeconds": grace,
		"volumes":                       volumes,
		"containers": []object{{
			"name": containerName, "image": l.image(), "imagePullPolicy": l.pullPolicy(),
			"command":      []string{"/bin/sh", script},
			"workingDir":   spec.Dir,
			"volumeMounts": mounts,
			"env": []object{
				fieldEnv(rundir.SchedulerKubernetesPod, "metadata.name"),
				fieldEnv(rundir.SchedulerKubernetesNode, "spec.nodeName"),
				fieldEnv(rundir.SchedulerKubernetesNamespace, "metadata.namespace"),
			},
		}},
	}
	var items []object
	account := serviceAccount
	if l.Tenant == nil {
		items = append(items, object{"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": namespace, "labels": labels, "annotations": expiry}})
	} else {
		// No host network and a non-root, unprivileged container: what Pod
		// Security "restricted" admits.
		l.Tenant.restrictedPod(pod, pod["containers"].([]object)[0])
		account = or(l.Tenant.ServiceAccount, tenantName(marker))
	}
	if l.RankPods {
		if l.Tenant == nil || l.Tenant.ServiceAccount == "" {
			items = append(items, l.rankAccess(namespace, account, labels)...)
		}
		pod["serviceAccountName"], pod["automountServiceAccountToken"] = account, true
		// A namespace of its own shares its node's network, as srun's
		// tasks do; a tenant's ranks reach each other by pod address.
		pod["hostNetwork"] = l.Tenant == nil
		if l.API != "" {
			c := pod["containers"].([]object)[0]
			c["env"] = append(c["env"].([]object), object{"name": "ABBENCH_KUBERNETES_API", "value": l.API})
		}
	}
	if len(spec.Nodes) > 0 {
		pod["affinity"] = object{"nodeAffinity": object{"requiredDuringSchedulingIgnoredDuringExecution": object{
			"nodeSelectorTerms": []object{{"matchExpressions": []object{{"key": "kubernetes.io/hostname", "operator": "In", "values": spec.Nodes}}}},
		}}}
	}
	job := object{"apiVersion": "batch/v1", "kind": "Job", "metadata": object{"name": l.jobName(marker), "namespace": namespace, "labels": labels, "annotations": expiry},
		"spec": object{
			"completions": 1, "parallelism": 1, "backoffLimit": 0,
			"activeDeadlineSeconds":   int64(deadline.Seconds()),
			"ttlSecondsAfterFinished": 60,
			"template":                object{"metadata": object{"labels": labels}, "spec": pod},
		}}
	return json.MarshalIndent(object{"apiVersion": "v1", "kind": "List", "items": append(items, job)}, "", "  ")
}

// rankAccess are the controller's ServiceAccount, the Role of rankRules
// and their RoleBinding, all in the run's namespace: made before the Job,
// so its pod gets the account's token.
func (l *Launcher) rankAccess(namespace, account string, labels object) []object {
	meta := object{"name": account, "namespace": namespace, "labels": labels}
	return []object{
		{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta, "rules": rankRules},
		{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": meta,
			"roleRef":  object{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": account},
			"subjects": []object{{"kind": "ServiceAccount", "name": account, "namespace": namespace}}},
	}
}

// volumes are the pod's volumes and their mounts: each shared directory
// from the host at the same path, or a tenant's claim at its path.
func (l *Launcher) volumes(dir string) (volumes, mounts []object, err error) {
	if l.Tenant != nil {
		if !within(filepath.Clean(dir), filepath.Clean(l.Tenant.ClaimPath)) {
			return nil, nil, fmt.Errorf("run directory %s is outside the claim's path %s", dir, l.Tenant.ClaimPath)
		}
		v, m := l.Tenant.claimVolume()
		return []object{v}, []object{m}, nil
	}
	for i, d := range sharedDirs(dir, l.Mounts) {
		if !filepath.IsAbs(d) {
			return nil, nil, fmt.Errorf("directory %q to share into the pod is not absolute: a pod has no working directory of abbench's", d)
		}
		name := fmt.Sprintf("shared-%d", i)
		volumes = append(volumes, object{"name": name, "hostPath": object{"path": d, "type": "Directory"}})
		mounts = append(mounts, object{"name": name, "mountPath": d})
	}
	return volumes, mounts, nil
}

func fieldEnv(name, path string) object {
	return object{"name": name, "valueFrom": object{"fieldRef": object{"fieldPath": path}}}
}

// sharedDirs are the host directories a run's pod mounts: the run
// directory and the launcher's mounts, each once, none below another
// (the outer mount holds it already).
func sharedDirs(dir string, mounts []string) []string {
	all := append([]string{filepath.Clean(dir)}, mounts...)
	for i := range all {
		all[i] = filepath.Clean(all[i])
	}
	slices.Sort(all)
	var out []string
	for _, d := range slices.Compact(all) {
		if !slices.ContainsFunc(out, func(outer string) bool { return within(d, outer) }) {
			out = append(out, d) // sorted: an outer directory comes before what it holds
		}
	}
	return out
}

// within says whether path is dir or below it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// labelValue is id made a valid label value.
func labelValue(id string) string { return kubeapi.LabelValue(id) }

// ControllerAccount is the service account a controller of rank pods
// runs as.
const ControllerAccount = serviceAccount

// ControllerAccess is, as one kubectl List, the ServiceAccount, Role and
// RoleBinding a controller of rank pods is given in namespace: what the
// rank driver's contract suite gives the controller it stands for.
func ControllerAccess(namespace string) ([]byte, error) {
	return json.Marshal(object{"apiVersion": "v1", "kind": "List", "items": (&Launcher{}).rankAccess(namespace, serviceAccount, object{labelLauncher: "kubernetes"})})
}
