package scenarios

import (
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// RoleKubernetes is what a role's rank pods are made of beyond the
// controller's pod, under the kubernetes launcher with rank pods
// (launcher.kubernetes.ranks: kubernetes): the image the role's server
// ships in, the resources the scheduler places its pods by, and where
// they may go. The rank wrapper reaches any image through an init
// container; the role's command is the whole argument list (Kubernetes'
// command replaces the image's entrypoint).
type RoleKubernetes struct {
	// Image is the role's own image (a tag, or pinned REPO@sha256:...);
	// empty: the controller's. Every rank pod of the role is held to one
	// image digest, to the pinned one where Image names it.
	Image string `yaml:"image" json:"image,omitempty"`
	// ImagePullPolicy is the rank containers' (default IfNotPresent).
	ImagePullPolicy string `yaml:"image_pull_policy" json:"image_pull_policy,omitempty"`
	// Resources are the rank container's requests and limits, Kubernetes
	// quantities by resource name (cpu, memory, nvidia.com/gpu, ...).
	Resources KubeResources `yaml:"resources" json:"resources,omitzero"`
	// Tolerations let the rank pods onto tainted nodes.
	Tolerations []KubeToleration `yaml:"tolerations" json:"tolerations,omitempty"`
	// NodeSelector holds the rank pods to nodes of these labels.
	NodeSelector map[string]string `yaml:"node_selector" json:"node_selector,omitempty"`
}

// KubeResources are a container's resource requests and limits.
type KubeResources struct {
	Requests map[string]string `yaml:"requests" json:"requests,omitempty"`
	Limits   map[string]string `yaml:"limits" json:"limits,omitempty"`
}

// KubeToleration is one of a pod's tolerations, as Kubernetes spells it.
type KubeToleration struct {
	Key      string `yaml:"key" json:"key,omitempty"`
	Operator string `yaml:"operator" json:"operator,omitempty"`
	Value    string `yaml:"value" json:"value,omitempty"`
	Effect   string `yaml:"effect" json:"effect,omitempty"`
	// TolerationSeconds bounds a NoExecute toleration.
	TolerationSeconds *int64 `yaml:"toleration_seconds" json:"tolerationSeconds,omitempty"`
}

var (
	// quantityPattern is a Kubernetes quantity: a signed decimal number
	// with an optional binary (Ki..Ei), decimal (n, u, m, k, M..E) or
	// exponent suffix.
	quantityPattern = lazyregexp.New(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$`)
	// qualifiedName is a resource or label key: an optional DNS
	// subdomain prefix and '/', then a name of at most 63 characters.
	qualifiedName     = lazyregexp.New(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$`)
	labelValuePattern = lazyregexp.New(`^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$`)
)

// kubernetesRole checks a role's kubernetes: keys: an image named
// literally, quantities and names the API server accepts, tolerations of
// the operators and effects Kubernetes has. The API server would refuse
// the Job only when the role's turn comes, mid-run; here it is refused
// before the first run, naming the key.
func (v *validator) kubernetesRole(path []any, r *Role) {
	k := r.Kubernetes
	switch img := k.Image; {
	case strings.Contains(img, "{{"):
		v.at(append(path, "image"), "role %q: image %q is a template: every arm runs one image, so name it literally", r.Name, img)
	case strings.ContainsAny(img, " \t\n"):
		v.at(append(path, "image"), "role %q: image %q holds white space: no image name does", r.Name, img)
	}
	if pp := k.ImagePullPolicy; pp != "" && pp != "Always" && pp != "IfNotPresent" && pp != "Never" {
		v.at(append(path, "image_pull_policy"), "role %q: image_pull_policy %q: choose Always, IfNotPresent or Never", r.Name, pp)
	}
	for _, kind := range []struct {
		name string
		m    map[string]string
	}{{"requests", k.Resources.Requests}, {"limits", k.Resources.Limits}} {
		for _, name := range slices.Sorted(maps.Keys(kind.m)) {
			at := append(path, "resources", kind.name, name)
			if !qualifiedName.MatchString(name) {
				v.at(at, "role %q: resource %q is not a resource name (cpu, memory, or a DOMAIN/NAME such as nvidia.com/gpu)", r.Name, name)
			}
			if !quantityPattern.MatchString(kind.m[name]) {
				v.at(at, "role %q: %s %s %q is not a Kubernetes quantity (such as 2, 500m, 4Gi)", r.Name, kind.name, name, kind.m[name])
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.Resources.Requests)) {
		// An extended resource (a device plugin's: DOMAIN/NAME outside
		// kubernetes.io) is never overcommitted: the API server refuses a
		// request without the same limit.
		domain, _, ok := strings.Cut(name, "/")
		if ok && !strings.HasSuffix(domain, "kubernetes.io") && k.Resources.Limits[name] != k.Resources.Requests[name] {
			v.at(append(path, "resources", "limits"), "role %q: extended resource %s: requests %s needs limits %s too (an extended resource is never overcommitted; limits alone request as much)", r.Name, name, k.Resources.Requests[name], k.Resources.Requests[name])
		}
	}
	for i, t := range k.Tolerations {
		v.toleration(append(path, "tolerations", i), r.Name, t)
	}
	for _, key := range slices.Sorted(maps.Keys(k.NodeSelector)) {
		if !qualifiedName.MatchString(key) || !labelValuePattern.MatchString(k.NodeSelector[key]) {
			v.at(append(path, "node_selector", key), "role %q: node_selector %s=%q is not a label (a key such as kubernetes.io/hostname, a value of at most 63 letters, digits, '-', '_' and '.')", r.Name, key, k.NodeSelector[key])
		}
	}
}

// toleration checks one toleration as the API server would.
func (v *validator) toleration(path []any, role string, t KubeToleration) {
	switch t.Operator {
	case "", "Equal":
		if t.Key == "" {
			v.at(path, "role %q: a toleration of operator Equal needs a key (operator: Exists with no key tolerates every taint)", role)
		}
	case "Exists":
		if t.Value != "" {
			v.at(append(path, "value"), "role %q: a toleration of operator Exists takes no value", role)
		}
	default:
		v.at(append(path, "operator"), "role %q: toleration operator %q: choose Equal or Exists", role, t.Operator)
	}
	if t.Key != "" && !qualifiedName.MatchString(t.Key) {
		v.at(append(path, "key"), "role %q: toleration key %q is not a label key", role, t.Key)
	}
	switch t.Effect {
	case "", "NoSchedule", "PreferNoSchedule", "NoExecute":
	default:
		v.at(append(path, "effect"), "role %q: toleration effect %q: choose NoSchedule, PreferNoSchedule or NoExecute (or none: every effect)", role, t.Effect)
	}
	if t.TolerationSeconds != nil && t.Effect != "NoExecute" {
		v.at(append(path, "toleration_seconds"), "role %q: toleration_seconds bounds a NoExecute toleration only", role)
	}
}
