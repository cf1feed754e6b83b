package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inside says whether path is dir or below it.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel) || rel == "."
}

// FuzzResolveCampaign resolves a campaign whose plan.json is any bytes,
// beside a directory outside it that looks like a run. Every attempt,
// source and bundle found lies inside the campaign: a plan cannot lead a
// comparison to runs elsewhere. A plan that does not parse is an error
// naming it.
func FuzzResolveCampaign(f *testing.F) {
	plan := &Plan{Schema: PlanSchema, Scenario: "s", Order: "abba", Runs: []PlannedRun{{Index: 1, Arm: "a"}, {Index: 2, Arm: "b", Token: "t"}}}
	data, _ := json.Marshal(plan)
	f.Add(data)
	f.Add([]byte(`{"runs": [{"index": 1, "arm": "a"}, {"index": 3, "arm": "c", "result": {"state": "failed"}}]}`))
	f.Add([]byte(`{"runs": [{"index": 1, "arm": "a"}, {"index": 1, "arm": "a"}]}`))
	f.Add([]byte(`{"runs": "x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		camp := filepath.Join(root, "camp")
		// A run of the campaign, and what looks like one outside it.
		for _, out := range []string{RunDir(camp, 1, "a"), filepath.Join(root, "outside")} {
			armOut(t, out, true, "tok")
		}
		if err := os.WriteFile(filepath.Join(camp, PlanFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		found, cleanup, err := Resolve(camp, nil)
		defer cleanup()
		if err != nil {
			if !strings.Contains(err.Error(), filepath.Join(camp, PlanFile)) {
				t.Fatalf("the error names no plan: %v", err)
			}
			return
		}
		for _, fd := range found {
			for what, p := range map[string]string{"source": fd.Source, "attempt": fd.Dir, "bundle": fd.Bundle} {
				if p != "" && !inside(camp, p) {
					t.Fatalf("the plan led to %s %s, outside the campaign", what, p)
				}
			}
			if fd.Dir == "" && fd.Problem == "" {
				t.Fatalf("%s: no attempt and no problem", fd.Source)
			}
		}
	})
}

// FuzzRunFiles reads any bytes as status.json, plan.json and a rank's
// registration: an error names the file; what is read, written again as
// abbench writes it, reads back the same.
func FuzzRunFiles(f *testing.F) {
	f.Add([]byte(`{"schema":"abbench-status-v1","arm":"a","state":"succeeded","started":"2026-01-02T03:04:05.123+01:00","ranks":[{"role":"r","rank":0,"log":"r-0.log","log_offset":12,"log_inode":3}],"reasons":[{"code":"rank-exited","detail":"x"}]}`))
	f.Add([]byte(`{"schema":"abbench-registration-v1","role":"r","rank":0,"arm_env":{"K":"1","L":null},"scheduler":{"SLURM_JOB_ID":"7"},"command":["x"]}`))
	f.Add([]byte(`{"runs":[{"index":1,"arm":"a","result":{"state":"ok","started":"2026-01-02T03:04:05Z"}}],"sequential":{"min_pairs":2,"rule":{}}}`))
	f.Add([]byte(`{"ended": "0000-01-01T00:00:00Z", "swept_processes": 1e3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for name, v := range map[string]any{StatusFile: &Status{}, PlanFile: &Plan{}, "reg.json": &Registration{}} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := ReadJSON(path, v); err != nil {
				if !strings.HasPrefix(err.Error(), path+": ") {
					t.Fatalf("the error names no file: %v", err)
				}
				continue
			}
			if err := WriteJSON(path, v); err != nil {
				t.Fatalf("%s read, but it does not write: %v", name, err)
			}
			back := map[string]any{StatusFile: &Status{}, PlanFile: &Plan{}, "reg.json": &Registration{}}[name]
			if err := ReadJSON(path, back); err != nil {
				t.Fatalf("%s written again does not read: %v", name, err)
			}
			a, _ := json.Marshal(v)
			b, _ := json.Marshal(back)
			if string(a) != string(b) {
				t.Fatalf("%s written again reads\n%s\nnot\n%s", name, b, a)
			}
		}
	})
}
