package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
)

// nodeLostClient's client runs long in arm a only (MODE 1), so the test
// can stop its node's kubelet while it runs, and arm b's run is quick.
const nodeLostClient = `roles:
  - {name: w, arm_env: true, ready: {log: up}, command: [sh, -c, 'echo up; exec sleep 600']}
  - {name: client, client: true, after_ready: true, arm_env: true,
     command: [sh, -c, 'if [ "$MODE" = 1 ]; then sleep 400; fi; echo "{\"num_prompts\": 1, \"completed\": 1, \"failed\": 0, \"output_throughput\": 10.0, \"valid\": true}" > "{{.Out}}/t.json"']}
evidence:
  throughput: {file: t.json, format: vllm}
acceptance:
  - {throughput: valid}
deadlines: {ready: 30s, client: 300s, drain: 1s, teardown: 10s, kill_grace: 2s}
`

// TestKubernetesNodeLostMidClient stops (SIGSTOP) the kubelet of the node
// the client's rank pod runs on, mid-client: the node controller marks
// the node and its pods not Ready, and the run is censored naming a rank
// pod of that node (the client's or another rank's there, whichever the
// watch sees first) and the node, well within the client deadline. The kubelet is continued
// once the run says so, and at the end whatever happened.
func TestKubernetesNodeLostMidClient(t *testing.T) {
	cmd, stdout, run := startKubeRun(t, "nodelost", nodeLostClient)
	client := readRankPod(t, run, "client-0")
	kubelet := kubeletPID(t, client.Node)
	// Lost mid-client: after its kubelet told the API server the pod runs.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		ready := kubectl(t, "get", "pod", "-n", client.Namespace, client.Pod, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if ready == "True" {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("pod %s not Ready within 30s of its rank's registration: %q", client.Pod, ready)
		}
	}
	if err := syscall.Kill(kubelet, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(kubelet, syscall.SIGCONT) // the cluster's own kubelet: gone means nothing to continue
		}
	}
	t.Cleanup(resume)
	stopped := time.Now()
	// The first rank pod of the node seen not Ready names it: the client's,
	// or another rank's there.
	want := regexp.MustCompile(`pod [a-z0-9-]+ on node ` + regexp.QuoteMeta(client.Node) + ` lost its node`)
	for !runSays(run, want) {
		if time.Since(stopped) > 240*time.Second {
			resume()
			cmd.Process.Kill()
			t.Fatalf("no %q within 240s of the kubelet's stop:\n%s", want, stdout.String())
		}
		time.Sleep(time.Second)
	}
	t.Logf("censored %s after the kubelet of %s stopped", time.Since(stopped).Round(time.Second), client.Node)
	resume()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitCensored {
		t.Fatalf("exit %v, want %d\n%s", err, cli.ExitCensored, stdout.String())
	}
	if !want.MatchString(stdout.String()) || !strings.Contains(stdout.String(), "CENSORED") {
		t.Errorf("output lacks %q or CENSORED:\n%s", want, stdout.String())
	}
}

// runSays reports whether any attempt's status of run holds want.
func runSays(run string, want *regexp.Regexp) bool {
	paths, _ := filepath.Glob(filepath.Join(run, "*", "status.json"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && want.Match(data) {
			return true
		}
	}
	return false
}

// kubeletPID is the pid of the dev cluster's kubelet of node (abk-nodeN
// is kubelet-N), from the cluster script's status.
func kubeletPID(t *testing.T, node string) int {
	t.Helper()
	n, ok := strings.CutPrefix(node, "abk-node")
	if !ok {
		t.Skipf("node %s is not one of the dev cluster's: its kubelet cannot be stopped from here", node)
	}
	status, err := exec.Command("../../scripts/kube-dev-cluster.sh", "status").CombinedOutput()
	if err != nil {
		t.Fatalf("kube-dev-cluster.sh status: %v\n%s", err, status)
	}
	m := regexp.MustCompile(`(?m)^kubelet-` + regexp.QuoteMeta(n) + ` running \(pid (\d+)\)`).FindSubmatch(status)
	if m == nil {
		t.Fatalf("no running kubelet-%s in:\n%s", n, status)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	return pid
}
