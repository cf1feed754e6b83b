package bundle

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/rundir"
)

// A verified bundle's provenance is every field of provenance.json but
// the ranks' environments, which nothing after verification reads: a
// field dropped from the decode (a machine, the campaign, the pod, the
// source) fails here, as does an environment decoded after all.
func TestProvenanceFactsAreEveryFieldButTheEnvironment(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	whole := Provenance{Schema: ProvenanceSchema, Tool: "abbench test", Source: &SourceRevision{Repository: "r", Head: "h", Tree: "t", Dirty: true},
		Image: "img", Hosts: []string{"node-1"}, Allocations: []string{"42"}, Token: "tok-1", RestartCount: "1", Started: start, Ended: start.Add(time.Second),
		Prompts:     &digest.Digest{Algorithm: digest.TokensOrdered, Count: 1, Hex: strings.Repeat("7c", 32)},
		Environment: map[string][]string{"ctx-0": {"MODE=1", "PATH=/bin"}},
		Campaign:    &rundir.CampaignRef{PlanDigest: "p", Scenario: "s", Index: 3, Arms: 2},
		Machines:    []machine.Facts{{Host: "node-1", Cores: 8}}, NCCL: map[string]string{"ctx-0": "2.21"},
		Containers: []rundir.ContainerImage{{Role: "ctx", Image: "img", Digest: "sha256:1"}},
		Pod:        &machine.Pod{Namespace: "ns"}, PodUnread: "why"}
	data, err := json.Marshal(whole)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := parseProvenanceFacts("p.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if facts.Environment != nil {
		t.Errorf("the environment was decoded: %v", facts.Environment)
	}
	want := whole
	want.Environment = nil
	if !reflect.DeepEqual(*facts, want) {
		t.Errorf("facts\n%+v\nwant\n%+v", *facts, want)
	}
	// The environment unread is still JSON, and the schema still named.
	bad := strings.Replace(string(data), `"MODE=1"`, `"MODE=1",`, 1)
	if _, err := parseProvenanceFacts("p.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "p.json does not parse") {
		t.Errorf("an environment that is not JSON: %v", err)
	}
	other := strings.Replace(string(data), ProvenanceSchema, "abbench-provenance-v0", 1)
	if _, err := parseProvenanceFacts("p.json", []byte(other)); err == nil {
		t.Error("a provenance of another schema parsed")
	}
}
