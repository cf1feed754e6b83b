package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
)

// Every value the bundle records passes the one redaction: a URL's
// password in an arm value, a scheduler value, a (rewritten) command or
// the scenario's image is in no file of the bundle.
func TestBundleRecordsNoURLPassword(t *testing.T) {
	dir, s, sb, ev, st := makeRun(t, 4)
	one, db := "1", "postgres://app:regpw-1@db/x"
	reg := rundir.Registration{Role: "ctx", Rank: 0, Host: "node-1", Token: "tok-1",
		ArmEnv:    map[string]*string{"TERM_MODE": &one, "DB_URL": &db},
		Scheduler: map[string]string{"SLURM_JOB_ID": "7", "SLURM_SPANK_URL": "https://u:regpw-2@spank.example/"},
		Command:   []string{"srv", "--db=postgres://app:regpw-3@db/x"}}
	data, _ := json.Marshal(reg)
	os.WriteFile(filepath.Join(dir, "coord", "ranks", "ctx-0.json"), data, 0o644)
	s.Source.Image = "docker://ci:regpw-4@registry.example/app:1"
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test"}, dest); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(dest, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "regpw-") {
				t.Errorf("%s holds a URL's password: %s", path, data)
			}
		}
		return nil
	})
	prov, _ := os.ReadFile(filepath.Join(dest, ProvenanceFile))
	if !strings.Contains(string(prov), `"image": "docker://ci:[REDACTED]@registry.example/app:1"`) {
		t.Errorf("the image is not recorded redacted: %s", prov)
	}
}
