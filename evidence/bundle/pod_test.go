package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/rundir"
)

const kubeToken = "20261201T120000Z-kube9f86d081884c7d65-0123456789ab"

// podFixture is the launcher's kube-pod.json of a real node, of namespace.
func podFixture(t *testing.T, namespace string) []byte {
	t.Helper()
	data, err := os.ReadFile("../../testdata/kube/kube-pod.json")
	if err != nil {
		t.Fatal(err)
	}
	var p machine.Pod
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	p.Namespace = namespace
	data, _ = json.MarshalIndent(p, "", "  ")
	return data
}

// writeKubeBundle writes the bundle of a run under Kubernetes (its token
// names a namespace) whose arm directory holds pod (none when nil),
// written after delay; it returns the bundle and its provenance.
func writeKubeBundle(t *testing.T, pod []byte, delay, wait time.Duration) (string, *Provenance) {
	t.Helper()
	dir, s, sb, ev, st := makeRun(t, 4)
	st.Token = kubeToken
	podPath := filepath.Join(filepath.Dir(dir), PodFile)
	written := make(chan struct{})
	go func() {
		defer close(written)
		time.Sleep(delay)
		if pod != nil {
			_ = os.WriteFile(podPath, pod, 0o644)
		}
	}()
	if delay == 0 {
		<-written
	}
	dest := filepath.Join(t.TempDir(), "bundle")
	err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test", PodWait: wait}, dest)
	<-written
	if err != nil {
		t.Fatal(err)
	}
	prov, err := ReadProvenance(dest)
	if err != nil {
		t.Fatal(err)
	}
	return dest, prov
}

// verifyLine is what abbench verify prints of the unsigned bundle dest.
func verifyLine(t *testing.T, dest string) string {
	t.Helper()
	checks, failed := CheckAll([]string{dest}, VerifyOptions{SkipSignature: true, AllowUnsigned: true})
	var out strings.Builder
	if err := WriteChecks(&out, checks); err != nil || failed > 0 {
		t.Fatalf("verify: %v, %d failed: %s", err, failed, out.String())
	}
	return out.String()
}

// A run under Kubernetes carries its pod's facts, signed with the rest:
// the file in the bundle (listed in the manifest, so an edit fails
// verification) and the facts in the provenance; facts the launcher
// writes while the bundle waits are taken too.
func TestBundleCarriesThePodFacts(t *testing.T) {
	namespace := rundir.KubernetesNamespace(kubeToken)
	for _, delay := range []time.Duration{0, 300 * time.Millisecond} {
		dest, prov := writeKubeBundle(t, podFixture(t, namespace), delay, 10*time.Second)
		if prov.Pod == nil || prov.PodUnread != "" || prov.Pod.NodeInfo["kubeletVersion"] != "v1.34.4" || !strings.HasPrefix(prov.Pod.ImageID, "sha256:4c1f") {
			t.Fatalf("written after %s: pod %+v, unread %q", delay, prov.Pod, prov.PodUnread)
		}
		if line := verifyLine(t, dest); !strings.Contains(line, dest+": pod abbench-9f86d081884c7d65/run-7xk2p on node abk-node1: pod image sha256:4c1f") {
			t.Fatalf("abbench verify says %q", line)
		}
		flipByte(t, filepath.Join(dest, PodFile))
		if _, err := Verify(dest, VerifyOptions{SkipSignature: true, AllowUnsigned: true}); err == nil || !strings.Contains(err.Error(), PodFile) {
			t.Fatalf("an edited %s verified: %v", PodFile, err)
		}
	}
}

// A run under Kubernetes whose launcher left no facts of its namespace
// (none at all, or an earlier attempt's) says so in its provenance, after
// the bounded wait, and carries no pod file; a run under another launcher
// neither waits nor says anything, whatever lies beside it.
func TestBundleSaysThePodFactsAreMissing(t *testing.T) {
	for name, c := range map[string]struct {
		pod  []byte
		want string
	}{
		"none":    {nil, "no "},
		"earlier": {podFixture(t, "abbench-0000000000000000"), "is of namespace abbench-0000000000000000, not the run's abbench-9f86d081884c7d65"},
	} {
		start := time.Now()
		dest, prov := writeKubeBundle(t, c.pod, 0, 200*time.Millisecond)
		if prov.Pod != nil || !strings.Contains(prov.PodUnread, c.want) || !strings.Contains(prov.PodUnread, "waited 200ms") {
			t.Errorf("%s: pod %+v, unread %q, want %q", name, prov.Pod, prov.PodUnread, c.want)
		}
		if time.Since(start) < 200*time.Millisecond {
			t.Errorf("%s: the bundle did not wait for the launcher", name)
		}
		if _, err := os.Stat(filepath.Join(dest, PodFile)); err == nil {
			t.Errorf("%s: the bundle carries a pod file", name)
		}
		if line := verifyLine(t, dest); !strings.Contains(line, dest+": pod facts missing: "+prov.PodUnread) {
			t.Errorf("%s: abbench verify says %q", name, line)
		}
	}
	dir, s, sb, ev, st := makeRun(t, 4)
	os.WriteFile(filepath.Join(filepath.Dir(dir), PodFile), podFixture(t, "abbench-9f86d081884c7d65"), 0o644)
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test"}, dest); err != nil {
		t.Fatal(err)
	}
	prov, _ := ReadProvenance(dest)
	if _, err := os.Stat(filepath.Join(dest, PodFile)); prov.Pod != nil || prov.PodUnread != "" || err == nil {
		t.Errorf("a run outside Kubernetes: pod %+v, unread %q", prov.Pod, prov.PodUnread)
	}
}
