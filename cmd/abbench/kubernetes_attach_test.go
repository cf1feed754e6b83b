package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/launcher/kubernetes/kubetest"
	"github.com/abbench/abbench/internal/testbin"
)

// kubeAttachImage is the image the attached Deployments run: abbench's own,
// which the dev cluster has; the simulator it serves is this tree's,
// mounted from the host (the cluster is on this host).
const kubeAttachImage = "abbench.local/abbench:dev"

// simDeployment is a Deployment of name in ns serving the simulator as one
// process with terminal set to DISAGGSIM_TERMINAL, Ready once it answers.
func simDeployment(ns, name, terminal, simDir string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[2]s}}
  template:
    metadata: {labels: {app: %[2]s}}
    spec:
      containers:
        - name: sim
          image: %[5]s
          imagePullPolicy: Never
          command: [/sim/disaggsim, serve, --listen, "0.0.0.0:8000"]
          env: [{name: DISAGGSIM_TERMINAL, value: "%[3]s"}]
          ports: [{containerPort: 8000}]
          readinessProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 1}
          volumeMounts: [{name: sim, mountPath: /sim, readOnly: true}]
      volumes: [{name: sim, hostPath: {path: %[4]s, type: Directory}}]
---
`, ns, name, terminal, simDir, kubeAttachImage)
}

// attachNamespace makes a namespace of the test's own with the three
// Deployments (the async one, the blocking one, and a "treatment" that
// runs the blocking setting), Ready, and deletes it when the test ends.
func attachNamespace(t *testing.T) string {
	t.Helper()
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	ns := "abbench-attach-test-" + hex.EncodeToString(b[:])
	// Static: the image has no C library.
	simDir := t.TempDir()
	if err := testbin.BuildInto(simDir, []string{"CGO_ENABLED=0"}, nil, "../disaggsim"); err != nil {
		t.Fatal(err)
	}
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() {
		if out, err := exec.Command("kubectl", "delete", "namespace", ns, "--timeout", "120s").CombinedOutput(); err != nil {
			t.Errorf("deleting namespace %s: %v: %s", ns, err, out)
		}
	})
	manifest := simDeployment(ns, "sim-async", "1", simDir) + simDeployment(ns, "sim-blocking", "0", simDir) + simDeployment(ns, "sim-wrong", "0", simDir)
	apply := exec.Command("kubectl", "apply", "-f", "-")
	apply.Stdin = strings.NewReader(manifest)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, out)
	}
	for _, d := range []string{"sim-async", "sim-blocking", "sim-wrong"} {
		kubectl(t, "rollout", "status", "-n", ns, "deployment/"+d, "--timeout", "120s")
	}
	return ns
}

// attachScenario is an A/B of two attached Deployments of ns, the
// treatment's deployment named treatment.
func attachScenario(t *testing.T, dir, ns, treatment string) string {
	t.Helper()
	prompts, _ := filepath.Abs("../../testdata/prompts-256.jsonl")
	s := fmt.Sprintf(`name: attached-deployments
arms:
  async: {env: {DISAGGSIM_TERMINAL: "1"}}
  blocking: {env: {DISAGGSIM_TERMINAL: "0"}}
baseline: blocking
workload: {prompts: %s, requests: 64, concurrency: 8}
attach:
  - name: server
    arms:
      async: {kubernetes: {namespace: %s, deployment: %s, port: 8000}}
      blocking: {kubernetes: {namespace: %[2]s, deployment: sim-blocking, port: 8000}}
    probe: {path: /metrics, pattern: 'disaggsim_config_info\{terminal="(?P<DISAGGSIM_TERMINAL>[^"]*)"', timeout: 5s}
roles:
  - name: client
    client: true
    openai: {url: '{{.Attached "server"}}', model: disaggsim, max_tokens: 16, ignore_eos: true, request_timeout: 10s}
acceptance:
  - {requests: all}
  - {throughput: valid}
  - {output_tokens: equal}
deadlines: {ready: 20s, client: 60s, drain: 2s, teardown: 10s, kill_grace: 2s}
`, prompts, ns, treatment)
	path := filepath.Join(dir, treatment+".yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneDeploymentPerRun is the A/B of one Deployment of ns set to each
// run's arm by a setup hook (kubectl set env, then the rollout waited for).
func oneDeploymentPerRun(t *testing.T, dir, ns string) string {
	t.Helper()
	data, err := os.ReadFile(attachScenario(t, dir, ns, "sim-wrong"))
	if err != nil {
		t.Fatal(err)
	}
	kc := `kubectl --kubeconfig "{{env "KUBECONFIG"}}" `
	hook := fmt.Sprintf(`setup:
  - {command: [sh, -c, '%sset env -n %s deployment/sim-wrong DISAGGSIM_TERMINAL="$DISAGGSIM_TERMINAL" && %srollout status -n %[2]s deployment/sim-wrong --timeout 120s'], arm_env: true}
attach:
`, kc, ns, kc)
	s := strings.Replace(strings.Replace(string(data), "deployment: sim-blocking", "deployment: sim-wrong", 1), "attach:\n", hook, 1)
	s = strings.Replace(s, "kill_grace: 2s}", "kill_grace: 2s, setup_hook: 3m}", 1)
	path := filepath.Join(dir, "one.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKubernetesAttachedDeployments: an A/B of two Deployments already
// running in a namespace, which abbench attaches to rather than starts:
// the campaign is accepted, each run's server proven from its own
// /metrics, its pods' names, nodes and image digests in the evidence;
// the "treatment" Deployment that actually runs the baseline setting is
// censored arm-mode-mismatch naming the probe's URL, before the client;
// and one Deployment set to each run's arm by an arm_env setup hook
// (kubectl set env) is accepted, its pod of the old setting leaving.
func TestKubernetesAttachedDeployments(t *testing.T) {
	abbench, err := exec.LookPath("abbench")
	if err != nil {
		t.Skip("abbench test binary not on PATH")
	}
	kubetest.NeedCluster(t)
	ns := attachNamespace(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	run := exec.Command(abbench, "run", attachScenario(t, dir, ns, "sim-async"), "--out", out, "--repeat", "2")
	run.Env = wide()
	stdout, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(stdout), "4 of 4 planned runs ran, 4 accepted") {
		t.Fatalf("abbench run: %v\n%s", err, stdout)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", "evidence.json"))
	if len(runs) != 4 {
		t.Fatalf("evidence of %d runs, want 4", len(runs))
	}
	for _, path := range runs {
		var e evidence.Evidence
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &e) != nil || len(e.Attached) != 1 {
			t.Fatalf("%s: %v %+v", path, err, e.Attached)
		}
		a := e.Attached[0]
		want := map[string]string{"async": "sim-async-", "blocking": "sim-blocking-"}[e.Arm]
		if len(a.Pods) != 1 || !strings.HasPrefix(a.Pods[0].Name, want) || a.Pods[0].Node == "" || !strings.Contains(a.Pods[0].Images[0], "sha256:") ||
			!strings.Contains(a.URL, a.Pods[0].IP+":8000/metrics") || a.Values["DISAGGSIM_TERMINAL"] != e.ArmEnv["DISAGGSIM_TERMINAL"] {
			t.Errorf("%s (arm %s): attached %+v: want its deployment's pod, node, image digest and address, and the arm's value", path, e.Arm, a)
		}
	}
	wrong := exec.Command(abbench, "arm", attachScenario(t, dir, ns, "sim-wrong"), "--arm", "async", "--out", filepath.Join(dir, "wrong"))
	wrong.Env = wide()
	stdout, err = wrong.CombinedOutput()
	if code := exitCode(err); code != 3 || !strings.Contains(string(stdout), `arm-mode-mismatch (arm async, role server rank 0): attached server server before the client: http://`) ||
		!strings.Contains(string(stdout), `:8000/metrics answered DISAGGSIM_TERMINAL="0" where the arm sets "1"`) || strings.Contains(string(stdout), "arm async: client") {
		t.Fatalf("the treatment deployment runs the baseline setting: exit %d\n%s", code, stdout)
	}
	one := exec.Command(abbench, "run", oneDeploymentPerRun(t, dir, ns), "--out", filepath.Join(dir, "one"), "--repeat", "1")
	one.Env = wide()
	if stdout, err := one.CombinedOutput(); err != nil || !strings.Contains(string(stdout), "2 of 2 planned runs ran, 2 accepted") {
		t.Fatalf("one deployment, set env per run: %v\n%s", err, stdout)
	}
}

// exitCode is a finished command's exit status (0 when err is nil).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
