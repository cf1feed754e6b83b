package arms

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
)

func TestAPreparedRankIsGivenSecretsThatNoRecordShows(t *testing.T) {
	t.Setenv("UNIT_PASSWORD", "hunter2-secret")
	c := unitController(t, strings.Replace(unitScenario, `command: [sh, -c, 'true']}
  - {name: helper`, `env: {DB: 'postgres://app:{{env "UNIT_PASSWORD"}}@db/x', GREETING: 'hello {{env "UNIT_PASSWORD"}}'}, command: [serve, '--password={{env "UNIT_PASSWORD"}}', '--rank={{.Rank}}']}
  - {name: helper`, 1))
	lp := c.prepareRank(c.s.Role("server"), 1, nil)
	if lp.err != nil {
		t.Fatal(lp.err)
	}
	if want := []string{"serve", "--password=hunter2-secret", "--rank=1"}; !slices.Equal(lp.p.Argv, want) {
		t.Fatalf("argv %q, want %q: the rank gets the secret itself", lp.p.Argv, want)
	}
	if !slices.Contains(lp.p.Env, "DB=postgres://app:hunter2-secret@db/x") || !slices.Contains(lp.p.Env, "GREETING=hello hunter2-secret") || !slices.Contains(lp.p.Env, "MODE=async") {
		t.Fatalf("environment %q lacks the role's env or the arm's", lp.p.Env)
	}
	var shown []string
	for _, kv := range lp.p.Env {
		if v, ok := strings.CutPrefix(kv, rankwrap.EnvArgv+"="); ok {
			if err := json.Unmarshal([]byte(v), &shown); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(shown) != 3 || strings.Contains(strings.Join(shown, " "), "hunter2") {
		t.Fatalf("the command as records show it: %q, want it redacted", shown)
	}
	record, err := os.ReadFile(rundir.EnvPath(c.coord, "server", 1))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(record), "hunter2") || !strings.Contains(string(record), "MODE=async") {
		t.Fatalf("the environment record shows the secret, or not the environment: %s", record)
	}
	if lp.p.Role != "server" || lp.p.Index != 1 || filepath.Dir(lp.p.Log) != c.dir {
		t.Fatalf("rank %s-%d logs to %s, want a log in the attempt", lp.p.Role, lp.p.Index, lp.p.Log)
	}
	if !slices.Contains(lp.secrets, "hunter2-secret") {
		t.Fatalf("secrets %q: the controller would not redact the value its templates read", lp.secrets)
	}
}

// TestOpenAIRankIsToldItsSecrets: abbench's own client is handed every
// value its role's templates read with env, whatever carries it, and no
// record of its environment shows them.
func TestOpenAIRankIsToldItsSecrets(t *testing.T) {
	t.Setenv("UNIT_GATEWAY", "gw-secret-route")
	t.Setenv("UNIT_KEY", "sk-unit-key-1")
	c := unitController(t, strings.Replace(unitScenario, `command: [sh, -c, 'true']}
evidence:`, `env: {OPENAI_API_KEY: '{{env "UNIT_KEY"}}'}, openai: {url: 'http://127.0.0.1:{{.Port "http"}}/{{env "UNIT_GATEWAY"}}', model: m}}
evidence:`, 1))
	lp := c.prepareRank(c.s.OpenAIRole(), 0, nil)
	if lp.err != nil {
		t.Fatal(lp.err)
	}
	var told []string
	for _, kv := range lp.p.Env {
		if v, ok := strings.CutPrefix(kv, redact.EnvValues+"="); ok {
			if err := json.Unmarshal([]byte(v), &told); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Contains(told, "gw-secret-route") || !slices.Contains(told, "sk-unit-key-1") {
		t.Fatalf("the client is told %q, want both values its templates read", told)
	}
	record, err := os.ReadFile(rundir.EnvPath(c.coord, "client", 0))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(record), "gw-secret") || strings.Contains(string(record), "sk-unit") {
		t.Fatalf("the environment record shows a secret: %s", record)
	}
}
