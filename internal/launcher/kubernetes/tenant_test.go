package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/launcher"
	"go.yaml.in/yaml/v3"
)

func tenantLauncher() *Launcher {
	return &Launcher{RankPods: true, Mounts: []string{"/share/camp", "/share/scen"}, Grace: time.Second,
		Tenant: &Tenant{Namespace: "team-a", Claim: "campaign", ClaimPath: "/share", UID: 1000, GID: 1000}}
}

// manifestPods are the pod specs of a manifest's Jobs, and the kinds of
// its objects.
func manifestPods(t *testing.T, data []byte) (pods []json.RawMessage, kinds []string) {
	t.Helper()
	var m struct {
		Items []struct {
			Kind string
			Spec struct {
				Template struct{ Spec json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, it := range m.Items {
		kinds = append(kinds, it.Kind)
		if it.Kind == "Job" {
			pods = append(pods, it.Spec.Template.Spec)
		}
	}
	return pods, kinds
}

// Every pod the namespaced mode writes passes Pod Security "restricted"
// (the profile's rules, field by field), and nothing of it is
// cluster-scoped; the pod of a namespace of the run's own (host network,
// hostPath, root) breaks them, as the admission would say.
func TestTenantPodsPassRestricted(t *testing.T) {
	spec := launcher.Spec{ID: "1-a", Dir: "/share/camp/runs/1-a"}
	data, err := tenantLauncher().manifest(spec, "team-a", "m1", spec.Dir+"/"+ScriptFile, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pods, kinds := manifestPods(t, data)
	if strings.Join(kinds, ",") != "ServiceAccount,Role,RoleBinding,Job" || len(pods) != 1 {
		t.Fatalf("objects %v: want the run's account, Role, binding and Job, no Namespace", kinds)
	}
	if v, err := kubeapi.RestrictedViolations(pods[0]); err != nil || len(v) > 0 {
		t.Errorf("the tenant's pod breaks restricted: %v (%v)\n%s", v, err, pods[0])
	}
	var pod struct {
		Volumes    []map[string]any
		Containers []struct{ VolumeMounts []struct{ MountPath string } }
	}
	if json.Unmarshal(pods[0], &pod) != nil || len(pod.Volumes) != 1 || pod.Volumes[0]["persistentVolumeClaim"] == nil ||
		pod.Containers[0].VolumeMounts[0].MountPath != "/share" {
		t.Errorf("volumes %v, mounts %+v: want the claim alone at its path", pod.Volumes, pod.Containers)
	}
	// The old manifest's pod is refused.
	old := &Launcher{RankPods: true, Mounts: []string{"/share/camp"}}
	data, err = old.manifest(spec, "abbench-m1", "m1", spec.Dir+"/"+ScriptFile, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pods, _ = manifestPods(t, data)
	v, _ := kubeapi.RestrictedViolations(pods[0])
	for _, want := range []string{"host namespaces", "is hostPath", "allowPrivilegeEscalation", "runAsNonRoot", "seccompProfile", "drop ALL"} {
		if !strings.Contains(strings.Join(v, "; "), want) {
			t.Errorf("the pod of a namespace of its own: violations %v lack %q", v, want)
		}
	}
}

// A tenant's run needs a claim, and every directory its pods share on
// it: otherwise a *TenantError (exit 2) saying what to change, before
// anything is asked of the cluster or written.
func TestTenantRefusesADirectoryOffTheClaim(t *testing.T) {
	l := tenantLauncher()
	l.Mounts = append(l.Mounts, "/home/me/scenarios")
	var te *TenantError
	if err := l.checkTenant(); !errors.As(err, &te) || !strings.Contains(err.Error(), "/home/me/scenarios is outside the claim campaign's path /share") ||
		!strings.Contains(te.Hint(), "under /share") {
		t.Errorf("error %v: want a *TenantError naming the directory and the path", err)
	}
	l = tenantLauncher()
	l.Tenant.Claim = ""
	if err := l.checkTenant(); !errors.As(err, &te) || !strings.Contains(te.Hint(), "claim_path") {
		t.Errorf("no claim: error %v", err)
	}
	if err := tenantLauncher().checkTenant(); err != nil {
		t.Errorf("all on the claim: %v", err)
	}
}

// An account that may not create namespaces runs as a tenant in its
// context's namespace: its rights are asked there, never a cluster's.
func TestAnAccountThatMayNotCreateNamespacesIsATenant(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	l.RankPods = true
	share := t.TempDir()
	l.Fallback = &Tenant{Claim: "campaign", ClaimPath: share, UID: 1000, GID: 1000}
	if err := os.WriteFile(filepath.Join(dir, "forbidden"), []byte("create namespaces\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.checkRights(context.Background(), "abbench-x"); err != nil {
		t.Fatal(err)
	}
	if l.Tenant == nil || l.Tenant.Namespace != "default" || l.Tenant.Claim != "campaign" {
		t.Fatalf("tenant %+v: want the fallback's in kubectl's namespace (default)", l.Tenant)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if !strings.Contains(string(calls), "auth can-i create jobs.batch -n default") || strings.Contains(string(calls), "can-i delete namespaces") {
		t.Errorf("rights asked:\n%s", calls)
	}
}

// The Role docs/kubernetes.md gives a tenant grants every right the
// namespaced launcher asks for.
func TestTheDocumentedTenantRoleGrantsEveryRight(t *testing.T) {
	data, err := os.ReadFile("../../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "### A namespaced tenant")
	_, block, ok2 := strings.Cut(rest, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal(`docs/kubernetes.md has no yaml block under "### A namespaced tenant"`)
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
	if err := yaml.Unmarshal([]byte(block), &role); err != nil || role.Kind != "Role" || role.Metadata.Name != "abbench-tenant" {
		t.Fatalf("the documented role %+v (%v): want the Role abbench-tenant", role, err)
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
	for _, r := range tenantLauncher().tenantRights() {
		if !granted[r.verb+" "+r.resource] {
			t.Errorf("the documented Role does not grant %s", r)
		}
	}
}

// A node the account may not read (a tenant's: nodes are cluster-scoped)
// is tried a bounded number of times, then recorded in the pod facts as
// unread with kubectl's words, so the bundle stops waiting for it.
func TestPodFactsSayWhichNodesCouldNotBeRead(t *testing.T) {
	l, dir := fakeCluster(t, "True")
	forbidden := `Error from server (Forbidden): nodes "n1" is forbidden: User "system:serviceaccount:team-a:tenant" cannot get resource "nodes"`
	if err := os.WriteFile(filepath.Join(dir, "node-forbidden"), []byte(forbidden+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := startFake(t, l)
	defer func() { _ = r.Cancel() }()
	path := filepath.Join(r.(*run).spec.Dir, PodFile)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var p PodFacts
		data, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(data, &p) == nil && p.NodesUnread["n1"] != "" {
			if p.NodesUnread["n1"] != forbidden || len(p.Nodes) != 0 {
				t.Fatalf("nodes unread %q, nodes %v", p.NodesUnread, p.Nodes)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod facts %s (%v): want node n1 unread", data, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
