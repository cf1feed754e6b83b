package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// cycleRun is a duration run of an openai client: the records of what it
// sent and of the cycle it says it went through (nil: no cycle file).
func cycleRun(t *testing.T, sent, cycle []digest.Record) *Evidence {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "prompts.jsonl"), []byte("[1]\n[2]\n[3]\n[4]\n"), 0o644)
	y := strings.Replace(sentScenario(false, 4), "requests: 4}", "duration: 5s}", 1)
	os.WriteFile(filepath.Join(root, "s.yaml"), []byte(y), 0o644)
	s, err := scenarios.Load(filepath.Join(root, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "run")
	os.Mkdir(dir, 0o755)
	if err := digest.WriteRecordsFile(filepath.Join(dir, scenarios.OpenAISent), digestOfRecords(t, digest.TokensOrdered, sent), sent); err != nil {
		t.Fatal(err)
	}
	if cycle != nil {
		if err := digest.WriteRecordsFile(filepath.Join(dir, scenarios.OpenAIDataset), digestOfRecords(t, digest.TokensOrdered, cycle), cycle); err != nil {
			t.Fatal(err)
		}
	}
	st := rundir.Status{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: "a", Token: "tok", Dir: dir, State: rundir.StateSucceeded}
	return collectWithStatus(t, s, "a", dir, st)
}

// TestDurationRunHeldToItsCycle: a duration run's sent prompts are held
// to the declared cycle, request k to prompt k mod n, and its workload
// digest is the declared one whatever count it sent; a run that left the
// cycle, a cycle that is not the declared one, and a missing cycle are
// censored, naming what differs.
func TestDurationRunHeldToItsCycle(t *testing.T) {
	declared := promptRecords(1, 2, 3, 4)
	for _, c := range []struct {
		name        string
		sent, cycle []digest.Record
		code        reason.Code
		want        string
	}{
		{"six requests through the cycle", promptRecords(1, 2, 3, 4, 1, 2), declared, "", ""},
		{"three requests, part of it", promptRecords(1, 2, 3), declared, "", ""},
		{"left the cycle", promptRecords(1, 2, 3, 4, 1, 3), declared, reason.WorkloadMismatch, "request 5 of the duration run carried other content"},
		{"another cycle", promptRecords(1, 2, 9, 4, 1), promptRecords(1, 2, 9, 4), reason.WorkloadMismatch, "the openai client cycled through sha256-length-prefixed-prompt-sha256-v1:4:"},
		{"no cycle", promptRecords(1, 2), nil, reason.DigestMissing, "left no readable record of the prompts it cycled through (openai-dataset.records)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := cycleRun(t, c.sent, c.cycle)
			cr := criterion(e, "digest")
			if c.want == "" {
				want := digestOfRecords(t, digest.TokensOrdered, declared)
				if !cr.OK || !e.Accepted || e.Workload == nil || *e.Workload != want || e.Sent.Digest.Count != uint64(len(c.sent)) {
					t.Fatalf("criterion %+v reasons %+v workload %v: want accepted, the declared %s", cr, e.Reasons, e.Workload, want)
				}
				return
			}
			if cr.OK || !strings.Contains(cr.Detail, c.want) || len(cr.Codes) != 1 || cr.Codes[0] != c.code {
				t.Fatalf("criterion %+v: want %s with %q", cr, c.code, c.want)
			}
		})
	}
}
