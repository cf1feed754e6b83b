package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// The status the re-derivation is given is every field of status.json but
// its times, phases and inherited names: a field the evidence is derived
// from (the ranks, hooks, reasons, state, builds, images) dropped from the
// decode fails here, as does a skipped field decoded after all.
func TestStatusForTheRederivationIsEveryFieldItReads(t *testing.T) {
	b := writeBundle(t, nil, 4)
	data, err := os.ReadFile(filepath.Join(b, StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	var whole rundir.Status
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	if whole.Started.IsZero() || len(whole.Ranks) == 0 || whole.State == "" {
		t.Fatalf("the bundle's status holds too little to test with: %+v", whole)
	}
	whole.Builds = []rundir.BuildFact{{Arm: "a"}}
	whole.Hooks = []rundir.HookStatus{{Kind: "setup", Log: "setup-0.log"}}
	whole.Containers = []rundir.ContainerImage{{Role: "ctx", Image: "img", Digest: "sha256:1"}}
	whole.Inherited = []string{"HOME"}
	data, _ = json.Marshal(whole)
	c := newDirCheck(b, VerifyOptions{}, nil)
	c.kept[StatusFile] = data
	got := c.status()
	if got == nil {
		t.Fatal("status.json did not parse")
	}
	want := whole
	want.Started, want.Ended, want.Phases, want.Inherited = got.Started, got.Ended, nil, nil
	if !got.Started.IsZero() || !got.Ended.IsZero() || got.Phases != nil || got.Inherited != nil {
		t.Errorf("a field left unread was decoded: %+v", got)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("status\n%+v\nwant\n%+v", *got, want)
	}
	c.kept[StatusFile] = []byte(`{"phases": [}`)
	if c.status() != nil {
		t.Error("a status.json that is not JSON parsed")
	}
}
