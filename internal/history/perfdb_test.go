package history

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// Every perfdb record names its schema and carries s_build, as
// docs/history.md lists it: "" where the arms are not builds, so a
// database loader's columns are there on every line.
func TestPerfDBRecordsHaveSchemaAndBuild(t *testing.T) {
	built := runEntry("b", 2)
	built.Build = "sha256:abcdef012345"
	var b strings.Builder
	if err := PerfDB(&b, []Entry{runEntry("a", 1), built}, Filter{}); err != nil {
		t.Fatal(err)
	}
	var builds []string
	sc := bufio.NewScanner(strings.NewReader(b.String()))
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		build, ok := rec["s_build"].(string)
		if rec["s_schema"] != PerfDBSchema || !ok {
			t.Errorf("record %v", rec)
		}
		builds = append(builds, build)
	}
	if len(builds) != 2 || builds[0] != "" || builds[1] != "sha256:abcdef012345" {
		t.Errorf("s_build %q", builds)
	}
}
