package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/machine"
)

// The controller's machine facts reach the bundle in memory (the Result
// arms.Run returned), never from coord/, which every rank can write: a forged
// coord/machine.json, or a rank's report for the controller's host, is not
// recorded; a report of another host is recorded as a rank's report,
// whatever it claims.
func TestBundleRecordsTheControllersOwnMachine(t *testing.T) {
	dir, s, sb, ev, st := makeRun(t, 4)
	ctl := &machine.Facts{Host: "ctl", CPUModel: "real cpu", Image: "docker://u:pw-9931@reg/x"}
	coord := filepath.Join(dir, "coord")
	os.MkdirAll(filepath.Join(coord, "machines"), 0o755)
	for name, data := range map[string]string{
		"machine.json":           `[{"host": "ctl", "cpuModel": "FORGED"}]`,
		"machines/host-ctl.json": `{"host": "ctl", "cpuModel": "FORGED", "reportedBy": "controller"}`,
		"machines/host-n2.json":  `{"host": "n2", "cpuModel": "n2 cpu", "reportedBy": "controller"}`,
		"machines/host-n3.json":  `{"host": "n3", "cpuModel": "n3 cpu", "reportedBy": "rank ctx-1"}`,
	} {
		os.WriteFile(filepath.Join(coord, name), []byte(data), 0o644)
	}
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Machine: ctl, Tool: "abbench test"}, dest); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dest, ProvenanceFile))
	var prov Provenance
	if err := json.Unmarshal(data, &prov); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "FORGED") || strings.Contains(string(data), "pw-9931") {
		t.Fatalf("provenance holds forged facts or a password: %s", data)
	}
	var got []string
	for _, f := range prov.Machines {
		got = append(got, f.Host+"/"+f.CPUModel+"/"+f.ReportedBy)
	}
	want := "ctl/real cpu/controller n2/n2 cpu/rank (unnamed) n3/n3 cpu/rank ctx-1"
	if strings.Join(got, " ") != want {
		t.Errorf("machines %v, want %s", got, want)
	}
	if c := machine.Class(prov.Machines); c != "real cpu | reported by a rank: n2 cpu | reported by a rank: n3 cpu" {
		t.Errorf("class %q", c)
	}
}

// The NCCL version each rank's log reports is in the provenance, by
// ROLE-RANK, read from the bundled (scoped) bytes only: an earlier
// attempt's bytes before the offset report nothing.
func TestProvenanceRecordsTheNCCLVersionsRanksReport(t *testing.T) {
	dir, s, sb, ev, st := makeRun(t, 4)
	// A line as NCCL_DEBUG=INFO prints it (testdata/nccl/bundles/machine-ring.tar.gz, nccl-0.log).
	f, err := os.OpenFile(filepath.Join(dir, "ctx-0.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("vm:610:610 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n")
	f.Close()
	// Rank 1's earlier attempt, before its offset, reported another version.
	log1 := filepath.Join(dir, "ctx-1.log")
	old, _ := os.ReadFile(log1)
	stale := int(st.Ranks[1].Offset)
	earlier := fmt.Sprintf("%-*s\n", stale-1, "NCCL INFO NCCL version 2.18.1+cuda12.2")
	os.WriteFile(log1, append([]byte(earlier), old[stale:]...), 0o644)
	dest := filepath.Join(t.TempDir(), "bundle")
	if err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test"}, dest); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dest, ProvenanceFile))
	var prov Provenance
	if err := json.Unmarshal(data, &prov); err != nil {
		t.Fatal(err)
	}
	if len(prov.NCCL) != 1 || prov.NCCL["ctx-0"] != "2.28.9+cuda13.0" {
		t.Errorf("nccl %v", prov.NCCL)
	}
}
