package arms

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/rundir"
)

const telemetryScenario = `name: telemetry
arms:
  a: {env: {MODE: "1"}}
  b: {env: {MODE: "0"}}
baseline: b
workload: {prompts: prompts.jsonl}
roles:
  - {name: server, arm_env: true, command: [sh, -c, 'echo "mode=$MODE"; exec sleep 60'], ready: {log: 'mode='}}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'sleep 0.5']}
telemetry: {interval: 20ms}
deadlines: {ready: 10s, client: 10s, teardown: 5s, kill_grace: 1s}
`

// The GPUs are sampled from the client's start to its end by an
// nvidia-smi on PATH, which does not outlive the measured phase even when
// it ignores SIGTERM; its record says what it took.
func TestGPUSamplerSpansTheClientAndEndsWithIt(t *testing.T) {
	skipShortRun(t)
	bin := t.TempDir()
	pidFile := filepath.Join(bin, "pid")
	smi := `#!/bin/sh
case "$*" in *-lms*) ;; *) exit 0 ;; esac
trap '' TERM
echo $$ > ` + pidFile + `
while :; do echo "$(date '+%Y/%m/%d %H:%M:%S.%3N'), 0, GPU-t, 1980, 3201, 500, 700, 50, 99, 0x0000000000000000"; sleep 0.02; done
`
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	st := runArm(t, context.Background(), loadScenario(t, telemetryScenario), "a")
	if st.State != rundir.StateSucceeded {
		t.Fatalf("state %s: %v", st.State, st.Reasons)
	}
	data, err := os.ReadFile(filepath.Join(st.Dir, gputelemetry.RecordFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec gputelemetry.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var client, drain rundir.PhaseTime
	for _, p := range st.Phases {
		switch p.Name {
		case "client":
			client = p
		case "drain":
			drain = p
		}
	}
	if rec.Error != "" || rec.Lines < 5 || rec.IntervalMS != 20 || rec.Started.After(client.Start) || rec.Ended.Before(client.Start) || rec.Ended.After(drain.Start) {
		t.Errorf("record %+v: want samples from before the client phase (%s) to before the drain (%s)", rec, client.Start, drain.Start)
	}
	samples, _ := os.ReadFile(filepath.Join(st.Dir, gputelemetry.SamplesFile))
	if got, malformed := gputelemetry.Parse(samples); len(got) != rec.Lines || malformed != 0 {
		t.Errorf("%d samples, %d malformed, the record says %d lines", len(got), malformed, rec.Lines)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("nvidia-smi (pid %d) outlived the run", pid)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
