package rundir

import "testing"

// TestKubernetesNamespaceOfToken reads a token's namespace back from its
// kubeMARKER part only: other parts (the time, a Slurm job, the random
// bits) and tokens without one name none.
func TestKubernetesNamespaceOfToken(t *testing.T) {
	for token, want := range map[string]string{
		"20260101T000000Z-kube0a1b-0123456789ab":         "abbench-0a1b",
		"20260101T000000Z-job7-r1-kube0a1b-0123456789ab": "abbench-0a1b",
		"20260101T000000Z-0123456789ab":                  "",
		"20260101T000000Z-job7-r0-0123456789ab":          "",
		"tok-1":                                          "",
		"20260101T000000Z-kube-0123456789ab":             "",
		"20260101T000000Z-kubeA_B-0123456789ab":          "",
	} {
		if got := KubernetesNamespace(token); got != want {
			t.Errorf("KubernetesNamespace(%q) = %q, want %q", token, got, want)
		}
	}
}
