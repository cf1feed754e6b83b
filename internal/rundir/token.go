package rundir

import "strings"

// Under Kubernetes the launch token names the run's namespace, so a person
// maps `kubectl get namespaces` to the attempt (its coordination
// directory, TOKEN/coord) and back: the launch script exports
// EnvKubernetesMarker, the marker of the namespace abbench-MARKER, and the
// token holds kubeMARKER as one of its dash-separated parts.
const (
	EnvKubernetesMarker = "ABBENCH_KUBERNETES_MARKER"
	// KubernetesNamespacePrefix starts every run's namespace name.
	KubernetesNamespacePrefix = "abbench-"
	kubernetesTokenTag        = "kube"
)

// KubernetesTokenPart is the token's part that names the namespace of
// marker, "" when marker could not be a namespace's (empty, longer than
// a namespace name leaves room for, or other than lowercase letters and
// digits): a token never carries a value it cannot parse back.
func KubernetesTokenPart(marker string) string {
	if marker == "" || len(KubernetesNamespacePrefix+marker) > 63 || strings.Trim(marker, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return ""
	}
	return kubernetesTokenTag + marker
}

// KubernetesNamespace is the namespace token names, "" when it names none
// (a run under another launcher, or made before tokens named it).
func KubernetesNamespace(token string) string {
	for _, part := range strings.Split(token, "-") {
		if marker, ok := strings.CutPrefix(part, kubernetesTokenTag); ok && KubernetesTokenPart(marker) == part {
			return KubernetesNamespacePrefix + marker
		}
	}
	return ""
}
