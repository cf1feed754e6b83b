package arms

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// serverScenario is a scenario of one server rank running sh -c ARGS
// (args: the script and its arguments, as YAML list items) and a client
// that ends at once.
func serverScenario(t *testing.T, args string) *scenarios.Scenario {
	t.Helper()
	return loadScenario(t, `name: server
arms:
  a: {env: {MODE: "1"}}
  b: {env: {MODE: "0"}}
baseline: b
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, arm_env: true, ready: {log: up}, command: [sh, -c, `+args+`]}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'exit 0']}
deadlines: {ready: 10s, client: 10s, teardown: 5s, kill_grace: 1s}
`)
}

// A reason quotes what went wrong (here a rank's last log line): the
// status, in memory and in status.json, holds no URL's password and no
// value a template read with env.
func TestStatusReasonsHoldNoSecret(t *testing.T) {
	t.Setenv("ABB_ARMS_SECRET", "tmpl-s3cret-6021")
	s := serverScenario(t, `'echo "dial postgres://app:url-pw-4417@db:5432/x as $1 failed"; exit 3', server, '{{env "ABB_ARMS_SECRET"}}'`)
	st := runArm(t, context.Background(), s, "a")
	if codes(st) != "rank-exited" {
		t.Fatalf("reasons %s", codes(st))
	}
	disk, _ := os.ReadFile(filepath.Join(st.Dir, rundir.StatusFile))
	for _, text := range []string{st.Reasons[0].Detail, string(disk)} {
		if strings.Contains(text, "url-pw-4417") || strings.Contains(text, "tmpl-s3cret-6021") {
			t.Errorf("a secret is in the status: %s", text)
		}
		if !strings.Contains(text, "postgres://app:[REDACTED]@db") {
			t.Errorf("the reason does not say what was redacted: %s", text)
		}
	}
}
