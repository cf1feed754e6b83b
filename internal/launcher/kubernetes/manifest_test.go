package kubernetes

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/launcher"
)

func TestManifestBoundsAndSharesTheRun(t *testing.T) {
	l := &Launcher{Mounts: []string{"/data/scen", "/runs"}, Deadline: 90 * time.Second, Grace: 5 * time.Second}
	spec := launcher.Spec{ID: "1-async", Dir: "/runs/camp/runs/1-async", Nodes: []string{"n2"}}
	data, err := l.manifest(spec, "abbench-1", "1", "/runs/camp/runs/1-async/"+ScriptFile, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Items []struct {
			Kind     string
			Metadata struct {
				Name, Namespace string
				Annotations     map[string]string
			}
			Spec struct {
				ActiveDeadlineSeconds   int
				TTLSecondsAfterFinished int
				BackoffLimit            *int
				Template                struct {
					Spec struct {
						RestartPolicy                 string
						TerminationGracePeriodSeconds int
						Volumes                       []struct{ HostPath struct{ Path string } }
						Containers                    []struct {
							Image   string
							Command []string
						}
						Affinity json.RawMessage
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &m); err != nil || len(m.Items) != 2 {
		t.Fatalf("manifest %s: %v", data, err)
	}
	ns, job := m.Items[0], m.Items[1]
	if ns.Kind != "Namespace" || ns.Metadata.Name != "abbench-1" || job.Metadata.Namespace != "abbench-1" {
		t.Fatalf("the Job is not in the run's namespace: %s", data)
	}
	if got := ns.Metadata.Annotations[annotationExpiry]; got != "2026-01-01T00:02:35Z" {
		t.Errorf("expiry %q, want the deadline, the grace and a minute after creation", got)
	}
	pod := job.Spec.Template.Spec
	if job.Spec.ActiveDeadlineSeconds != 90 || job.Spec.TTLSecondsAfterFinished == 0 || job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 ||
		pod.RestartPolicy != "Never" || pod.TerminationGracePeriodSeconds != 5 {
		t.Errorf("deadlines, retries or grace wrong: %s", data)
	}
	var paths []string
	for _, v := range pod.Volumes {
		paths = append(paths, v.HostPath.Path)
	}
	if !slices.Equal(paths, []string{"/data/scen", "/runs"}) {
		t.Errorf("host paths %v, want the mounts, the run directory inside /runs", paths)
	}
	if c := pod.Containers[0]; c.Image != DefaultImage || !slices.Equal(c.Command, []string{"/bin/sh", "/runs/camp/runs/1-async/" + ScriptFile}) {
		t.Errorf("container %+v", c)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(pod.Affinity)), ""), `"values":["n2"]`) {
		t.Errorf("affinity %s does not hold the run to its nodes", pod.Affinity)
	}
}

// TestManifestGivesTheControllerOfRankPodsItsAccountOnly: with RankPods,
// the List makes the controller's ServiceAccount, a Role of its rank Jobs
// and pods alone, and their binding before the Job, whose pod alone mounts
// the account's token and is told the API server's address.
func TestManifestGivesTheControllerOfRankPodsItsAccountOnly(t *testing.T) {
	l := &Launcher{RankPods: true, API: "https://192.0.2.2:16443"}
	data, err := l.manifest(launcher.Spec{ID: "r", Dir: "/runs/r"}, "abbench-2", "2", "/runs/r/"+ScriptFile, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Items []struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
			Rules    []struct{ APIGroups, Resources, Verbs []string }
			RoleRef  struct{ Kind, Name string }
			Subjects []struct{ Kind, Name, Namespace string }
			Spec     struct {
				Template struct {
					Spec struct {
						ServiceAccountName                        string
						AutomountServiceAccountToken, HostNetwork bool
						Containers                                []struct {
							Env []struct{ Name, Value string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, it := range m.Items {
		kinds = append(kinds, it.Kind)
		if it.Kind != "Namespace" && it.Metadata.Namespace != "abbench-2" {
			t.Errorf("%s %s is not in the run's namespace", it.Kind, it.Metadata.Name)
		}
	}
	if strings.Join(kinds, " ") != "Namespace ServiceAccount Role RoleBinding Job" {
		t.Fatalf("kinds %v", kinds)
	}
	var rules []string
	for _, r := range m.Items[2].Rules {
		rules = append(rules, strings.Join(r.APIGroups, ",")+"/"+strings.Join(r.Resources, ",")+":"+strings.Join(r.Verbs, ","))
	}
	if strings.Join(rules, " ") != "batch/jobs:create,get,list,delete /pods:get,list,watch" {
		t.Errorf("rules %v", rules)
	}
	b := m.Items[3]
	if b.RoleRef.Kind != "Role" || b.RoleRef.Name != serviceAccount || len(b.Subjects) != 1 || b.Subjects[0].Name != serviceAccount || b.Subjects[0].Namespace != "abbench-2" {
		t.Errorf("binding %+v", b)
	}
	pod := m.Items[4].Spec.Template.Spec
	env := pod.Containers[0].Env
	if pod.ServiceAccountName != serviceAccount || !pod.AutomountServiceAccountToken || !pod.HostNetwork ||
		env[len(env)-1].Name != "ABBENCH_KUBERNETES_API" || env[len(env)-1].Value != l.API {
		t.Errorf("controller pod %+v", pod)
	}
	// Without rank pods: no account, and no token in the pod.
	l.RankPods = false
	data, _ = l.manifest(launcher.Spec{ID: "r", Dir: "/runs/r"}, "abbench-2", "2", "/runs/r/"+ScriptFile, time.Now())
	if strings.Contains(string(data), `"kind": "ServiceAccount"`) || !strings.Contains(string(data), `"automountServiceAccountToken": false`) {
		t.Errorf("a one-pod run has an account or a token:\n%s", data)
	}
}

func TestSharedDirsOnceEach(t *testing.T) {
	got := sharedDirs("/a/b/run", []string{"/a-x", "/a/", "/a-x/y", "/c"})
	if !slices.Equal(got, []string{"/a", "/a-x", "/c"}) {
		t.Fatalf("got %v", got)
	}
}

func TestExpiredNamespaces(t *testing.T) {
	var nss []namespaceObject
	for name, at := range map[string]string{"old": "2026-01-01T00:00:00Z", "new": "2026-01-01T02:00:00Z", "unreadable": "soon"} {
		var ns namespaceObject
		ns.Metadata.Name, ns.Metadata.Annotations = name, map[string]string{annotationExpiry: at}
		nss = append(nss, ns)
	}
	if got := expired(nss, time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)); !slices.Equal(got, []string{"old"}) {
		t.Fatalf("expired %v, want [old]", got)
	}
}

// TestScriptArmWinsAndQuotes runs a launch script in a real shell: the
// spec's environment comes after the launcher's PATH (the arm's PATH
// wins), any value survives its quoting, and abbench's own executable is
// the image's.
func TestScriptArmWinsAndQuotes(t *testing.T) {
	dir := t.TempDir()
	l := &Launcher{Self: "/host/bin/abbench", InImage: "/bin/echo", Path: "/image/bin"}
	spec := launcher.Spec{Dir: dir, Command: []string{"/host/bin/abbench", "it's"}, Env: []string{"PATH=/usr/bin:/bin", "A=a,b 'q'\nü"}}
	script := l.Script(spec, "m") + "\n"
	script = strings.Replace(script, "exec >>", ": >>", 1) // keep the output here
	out, err := exec.Command("/bin/sh", "-c", strings.Replace(script, "exec '/bin/echo'", `printf '%s|' "$PATH" "$A" "$ABBENCH_ALLOCATION"; exec '/bin/echo'`, 1)).Output()
	if err != nil {
		t.Fatalf("%v: %s", err, script)
	}
	if want := "/usr/bin:/bin|a,b 'q'\nü|m|it's\n"; string(out) != want {
		t.Fatalf("script printed %q, want %q:\n%s", out, want, script)
	}
}

func TestManifestRefusesARelativeMount(t *testing.T) {
	l := &Launcher{Mounts: []string{"testdata"}}
	if _, err := l.manifest(launcher.Spec{ID: "1-a", Dir: "/runs/1-a"}, "abbench-1", "1", "/runs/1-a/"+ScriptFile, time.Now()); err == nil || !strings.Contains(err.Error(), `"testdata"`) {
		t.Fatalf("err %v, want the relative directory named", err)
	}
}
