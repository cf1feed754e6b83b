package arms

import (
	"regexp"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// TestTokenNamesTheKubernetesNamespace: under Kubernetes the token carries
// the namespace's marker the launch script exports, and reads back as the
// run's namespace; a marker that could not be a namespace's is left out,
// and outside Kubernetes the token names none.
func TestTokenNamesTheKubernetesNamespace(t *testing.T) {
	t.Setenv("SLURM_JOB_ID", "")
	t.Setenv(rundir.EnvKubernetesMarker, "0a1b2c3d4e5f6789")
	tok := NewToken()
	if !regexp.MustCompile(`^\d{8}T\d{6}Z-kube0a1b2c3d4e5f6789-[0-9a-f]{12}$`).MatchString(tok) {
		t.Fatalf("token %q does not carry the namespace's marker", tok)
	}
	if ns := rundir.KubernetesNamespace(tok); ns != "abbench-0a1b2c3d4e5f6789" {
		t.Fatalf("token %q names namespace %q", tok, ns)
	}
	t.Setenv("SLURM_JOB_ID", "42")
	if tok := NewToken(); !regexp.MustCompile(`-job42-r0-kube0a1b2c3d4e5f6789-`).MatchString(tok) {
		t.Fatalf("token %q: want the Slurm job and the namespace", tok)
	}
	for _, marker := range []string{"", "A/../b", "x-y"} {
		t.Setenv(rundir.EnvKubernetesMarker, marker)
		if tok := NewToken(); rundir.KubernetesNamespace(tok) != "" || regexp.MustCompile(`kube`).MatchString(tok) {
			t.Errorf("marker %q gave token %q, want no namespace", marker, tok)
		}
	}
}
