package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

const hookFactsYAML = `name: t
arms:
  a: {env: {M: "1"}}
  b: {env: {M: "0"}}
baseline: b
workload: {prompts: prompts.jsonl, requests: 4}
setup:
  - [lock-clocks]
  - [nvidia-smi, -q]
roles:
  - {name: srv, arm_env: true, command: [x]}
evidence:
  facts:
    clocks: {role: setup, pattern: 'clocks locked=(?P<mhz>\d+)'}
`

// A facts rule reads a setup hook's output as any rank's log: the hook
// is rank I of role setup, its log read whole; a hook that never ran is
// missing as a rank would be.
func TestFactsOfTheSetupHooks(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "prompts.jsonl"), []byte("[1]\n[2]\n[3]\n[4]\n"), 0o644)
	s, err := scenarios.Load(writeFile(t, dir, "s.yaml", hookFactsYAML))
	if err != nil {
		t.Fatal(err)
	}
	attempt := filepath.Join(dir, "attempt")
	writeFile(t, attempt, rundir.HookLog("setup", 0), "locking\nclocks locked=1400\n")
	st := &rundir.Status{Arm: "a", Dir: attempt, State: rundir.StateSucceeded, MatchedDigest: s.MatchedDigest(),
		Ranks: []rundir.RankStatus{{Role: "srv", Log: "srv-0.log"}},
		Hooks: []rundir.HookStatus{{Kind: "setup", Index: 0, Log: rundir.HookLog("setup", 0)}}}
	if err := rundir.WriteStatus(attempt, st); err != nil {
		t.Fatal(err)
	}
	ev, err := Collect(s, "a", attempt)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	for _, f := range ev.Ranks {
		if f.Role == "setup" && f.Rank == 0 {
			got = f.Facts["clocks"]
		}
	}
	if got["mhz"] != "1400" {
		t.Errorf("facts of setup hook 0: %v, want clocks mhz 1400 (ranks %+v)", got, ev.Ranks)
	}
	missing := false
	for _, r := range ev.Reasons {
		missing = missing || (r.Code == reason.RankMissing && strings.Contains(r.Detail, "setup hook 1 never started"))
	}
	if !missing || ev.Accepted {
		t.Errorf("setup hook 1 never ran, yet: accepted %v, reasons %v", ev.Accepted, ev.Reasons)
	}
}

func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
