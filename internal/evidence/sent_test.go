package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// sentScenario has two ctx ranks that report a digest of the prompts
// they activated (with records) and an openai client; activation: false
// leaves the ranks' rule out, so the client's digest is all there is.
func sentScenario(activation bool, requests int) string {
	y := `name: t
arms:
  a: {env: {M: "1"}}
  b: {env: {M: "0"}}
baseline: b
workload: {prompts: prompts.jsonl, concurrency: 2, requests: ` + fmt.Sprint(requests) + `}
roles:
  - {name: ctx, ranks: 2, arm_env: true, command: [x]}
  - {name: client, client: true, after_ready: true, openai: {url: 'http://127.0.0.1:1', model: m}}
evidence:
`
	if activation {
		y += `  activation: {role: ctx, pattern: 'activation rank=(?P<rank>\d+) count=(?P<count>\d+) digest=(?P<digest>\w+) algorithm=(?P<algorithm>\S+)', records: "act-{{.Rank}}.records"}
`
	}
	return y + "acceptance:\n  - {digest: agree}\n"
}

// prompts of the test: [1] [2] [3] [4].
func promptRecords(order ...uint32) []digest.Record {
	var out []digest.Record
	for _, t := range order {
		out = append(out, digest.RecordOf(digest.AppendTokens(nil, []uint32{t})))
	}
	return out
}

func digestOfRecords(t *testing.T, alg digest.Algorithm, recs []digest.Record) digest.Digest {
	t.Helper()
	d, ok := digestIn(recs, alg)
	if !ok {
		t.Fatal("digest of records")
	}
	return d
}

// sentRun is a run of sentScenario: what the client sent, and what the
// ranks activated (nil: no rank log); records says the ranks wrote theirs.
type sentRun struct {
	activation      bool
	rankAlg         digest.Algorithm
	sent, served    []digest.Record
	records, noSent bool
}

func (r sentRun) collect(t *testing.T) *Evidence {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "prompts.jsonl"), []byte("[1]\n[2]\n[3]\n[4]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "s.yaml"), []byte(sentScenario(r.activation, len(r.sent))), 0o644)
	s, err := scenarios.Load(filepath.Join(root, "s.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "run")
	os.Mkdir(dir, 0o755)
	st := rundir.Status{Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Arm: "a", Token: "tok", Dir: dir, State: rundir.StateSucceeded}
	if !r.noSent {
		if err := digest.WriteRecordsFile(filepath.Join(dir, scenarios.OpenAISent), digestOfRecords(t, digest.TokensOrdered, r.sent), r.sent); err != nil {
			t.Fatal(err)
		}
	}
	if r.activation {
		d := digestOfRecords(t, r.rankAlg, r.served)
		for rank := range 2 {
			name := fmt.Sprintf("ctx-%d.log", rank)
			line := fmt.Sprintf("activation rank=%d count=%d digest=%s algorithm=%s\n", rank, d.Count, d.Hex, d.Algorithm)
			os.WriteFile(filepath.Join(dir, name), []byte(line), 0o644)
			st.Ranks = append(st.Ranks, rundir.RankStatus{Role: "ctx", Rank: rank, Log: name})
			if r.records {
				digest.WriteRecordsFile(filepath.Join(dir, fmt.Sprintf("act-%d.records", rank)), d, r.served)
			}
		}
	}
	return collectWithStatus(t, s, "a", dir, st)
}

func criterion(e *Evidence, kind string) Criterion {
	for _, c := range e.Criteria {
		if c.Kind == kind {
			return c
		}
	}
	return Criterion{}
}

// TestSentDigestJoinsTheDigestCriterion: the client's record of what it
// sent is held to the declared prompts and to what the ranks served, in
// any order; other content is censored workload-mismatch naming both
// sides and how to explain it.
func TestSentDigestJoinsTheDigestCriterion(t *testing.T) {
	inOrder, shuffled, altered := promptRecords(1, 2, 3, 4), promptRecords(3, 1, 4, 2), promptRecords(1, 2, 9, 4)
	three, threeShuffled := promptRecords(1, 2, 3), promptRecords(2, 3, 1)
	cases := []struct {
		name string
		run  sentRun
		want string // a reason's detail; "" when accepted
	}{
		{"served as a multiset", sentRun{activation: true, rankAlg: digest.TokensSorted, sent: inOrder, served: shuffled}, ""},
		// An ordered activation digest of concurrent requests is held to
		// the declared order, as ever: such a server hashes a multiset.
		{"served every prompt in another order", sentRun{activation: true, rankAlg: digest.TokensOrdered, sent: inOrder, served: shuffled, records: true},
			"the ranks served sha256-length-prefixed-prompt-sha256-v1:4:"},
		{"served some in another order, with records", sentRun{activation: true, rankAlg: digest.TokensOrdered, sent: three, served: threeShuffled, records: true}, ""},
		{"the server altered a prompt", sentRun{activation: true, rankAlg: digest.TokensSorted, sent: inOrder, served: altered, records: true},
			"the openai client sent sha256-length-prefixed-prompt-sha256-v1:4:"},
		{"another order, no records to tell", sentRun{activation: true, rankAlg: digest.TokensOrdered, sent: three, served: threeShuffled},
			"no activation records tell a reordering from other content"},
		{"the client sent other prompts", sentRun{activation: true, rankAlg: digest.TokensSorted, sent: altered, served: altered, records: true},
			"the openai client sent sha256-length-prefixed-prompt-sha256-v1:4:"},
		{"the client alone", sentRun{sent: inOrder}, ""},
		{"the client alone, out of order", sentRun{sent: shuffled}, "the openai client sent sha256-length-prefixed-prompt-sha256-v1:4:"},
		{"no sent records", sentRun{noSent: true, sent: inOrder}, "left no readable record of the prompts it sent (openai-sent.records)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.run.collect(t)
			cr := criterion(e, "digest")
			if c.want == "" {
				if !cr.OK || !e.Accepted || e.Workload == nil {
					t.Fatalf("criterion %+v reasons %+v: want accepted", cr, e.Reasons)
				}
				return
			}
			if cr.OK || !strings.Contains(cr.Detail, c.want) {
				t.Fatalf("criterion %+v: want a failure with %q", cr, c.want)
			}
		})
	}
	e := sentRun{activation: true, rankAlg: digest.TokensSorted, sent: inOrder, served: altered, records: true}.collect(t)
	cr := criterion(e, "digest")
	for _, want := range []string{"ctx rank 0 served sha256-sorted", "different content: 1 of 4 prompts only in A (first at positions 2)",
		"A = the client's openai-sent.records, B = act-0.records; abbench digest --explain openai-sent.records act-0.records"} {
		if !strings.Contains(cr.Detail, want) {
			t.Errorf("detail %q lacks %q", cr.Detail, want)
		}
	}
	if len(cr.Codes) != 1 || cr.Codes[0] != reason.WorkloadMismatch {
		t.Errorf("codes %v, want workload-mismatch", cr.Codes)
	}
	if e.Sent == nil || e.Sent.Records != scenarios.OpenAISent || !contains(e.Inputs, scenarios.OpenAISent) {
		t.Errorf("sent %+v inputs %v: the sent records are evidence, bundled", e.Sent, e.Inputs)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
