package kubernetes

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/rundir"
)

// TestLaunchTokenNamesTheNamespace runs a run's launch script in a real
// shell: the marker it exports makes the controller's launch token name
// the very namespace the launcher created, so `kubectl get namespaces`
// leads to the attempt and the attempt's token to its namespace.
func TestLaunchTokenNamesTheNamespace(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	r, err := l.Start(context.Background(), launcher.Spec{ID: "1-a", Dir: filepath.Join(t.TempDir(), "run"),
		Command: []string{"/bin/sh", "-c", `printf %s "$` + rundir.EnvKubernetesMarker + `"`}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Cancel() })
	spec := r.(*run).spec
	if out, err := exec.Command("/bin/sh", filepath.Join(spec.Dir, ScriptFile)).CombinedOutput(); err != nil {
		t.Fatalf("launch script: %v: %s", err, out)
	}
	exported, err := os.ReadFile(filepath.Join(spec.Dir, OutputFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_JOB_ID", "")
	t.Setenv(rundir.EnvKubernetesMarker, string(exported))
	token := arms.NewToken()
	var created struct {
		Items []struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"items"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "created.json"))
	if err := json.Unmarshal(data, &created); err != nil || len(created.Items) == 0 || created.Items[0].Kind != "Namespace" {
		t.Fatalf("created %s (%v): want the namespace first", data, err)
	}
	if ns := rundir.KubernetesNamespace(token); ns == "" || ns != created.Items[0].Metadata.Name || ns != r.(*run).namespace {
		t.Fatalf("token %q (the script exported %q) names namespace %q; the launcher created %q", token, exported, ns, created.Items[0].Metadata.Name)
	}
}
