package kubernetes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/launcher"
	"go.yaml.in/yaml/v3"
)

// An account that may not make namespaces (a tenant's, with rights in
// one namespace) gets a typed error naming every right it lacks, who it
// is and the ClusterRole to grant, before anything is made; kubectl's
// refusal was printed raw, half-way through creating the run's List.
func TestAnAccountWithoutTheRightsIsToldWhich(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	l.RankPods = true
	if err := os.WriteFile(filepath.Join(dir, "forbidden"), []byte("create namespaces\ndelete namespaces\ncreate roles.rbac.authorization.k8s.io\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := launcher.Spec{ID: "1-a", Dir: filepath.Join(t.TempDir(), "run"), Command: []string{"true"}}
	r, err := l.Start(context.Background(), spec)
	var fe *ForbiddenError
	if !errors.As(err, &fe) || r != nil {
		t.Fatalf("run %v, error %v: want a *ForbiddenError", r, err)
	}
	want := "kubernetes launcher: your account system:serviceaccount:team-a:tenant may not create namespaces (cluster-scoped), delete namespaces (cluster-scoped), create roles.rbac.authorization.k8s.io"
	if !strings.HasPrefix(err.Error(), want+":") {
		t.Errorf("error %q\nwant it to start %q", err, want)
	}
	if h := fe.Hint(); !strings.Contains(h, "ClusterRole abbench-launcher") || !strings.HasSuffix(h, "--serviceaccount=team-a:tenant") {
		t.Errorf("hint %q", h)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if strings.Contains(string(calls), "create -f") {
		t.Errorf("something was created:\n%s", calls)
	}
	if _, err := os.Stat(spec.Dir); !os.IsNotExist(err) {
		t.Errorf("the run directory was left: %v", err)
	}
	// Granted, the run starts, and the rights are asked once per launcher.
	if err := os.Remove(filepath.Join(dir, "forbidden")); err != nil {
		t.Fatal(err)
	}
	r = startFake(t, l)
	waitFacts(t, filepath.Join(r.(*run).spec.Dir, PodFile), "n1") // its pod seen: a cancel then ends it
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	if err := l.checkRights(context.Background(), "abbench-x"); err != nil {
		t.Fatal(err)
	}
	calls, _ = os.ReadFile(filepath.Join(dir, "calls"))
	if n := strings.Count(string(calls), "auth can-i create namespaces"); n != 2 {
		t.Errorf("asked %d times whether it may create namespaces, want twice (the refused start, then once)", n)
	}
}

// The ClusterRole docs/kubernetes.md gives an administrator to grant
// grants every right the launcher asks for, with rank pods and without.
func TestTheDocumentedClusterRoleGrantsEveryRight(t *testing.T) {
	data, err := os.ReadFile("../../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "### The launcher's rights")
	_, block, ok2 := strings.Cut(rest, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`docs/kubernetes.md has no yaml block under "### The launcher's rights"`)
	}
	var role struct {
		Kind     string
		Metadata struct{ Name string }
		Rules    []struct {
			APIGroups []string `yaml:"apiGroups"`
			Resources []string
			Verbs     []string
		}
	}
	if err := yaml.Unmarshal([]byte(block), &role); err != nil || role.Kind != "ClusterRole" || role.Metadata.Name != "abbench-launcher" {
		t.Fatalf("the documented role %+v (%v): want the ClusterRole abbench-launcher", role, err)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				if g != "" {
					res += "." + g
				}
				for _, v := range r.Verbs {
					granted[v+" "+res] = true
				}
			}
		}
	}
	for _, r := range (&Launcher{RankPods: true}).rights() {
		if !granted[r.verb+" "+r.resource] {
			t.Errorf("the documented ClusterRole does not grant %s", r)
		}
	}
}
