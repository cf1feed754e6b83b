package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A process a rank left behind can still write the run directory after
// evidence read it: swapping an input for a symbolic link (here to a file
// outside the run) must not put the linked file in the bundle. The bundle
// reads every input through the run's os.Root, never through a link: a
// record, the status or a registration swapped so refuses the bundle
// (naming the file); a log so swapped is recorded as unreadable; an
// environment or machine record so swapped is left out.
func TestBundleNeverReadsThroughALink(t *testing.T) {
	const marker = "outside-marker-5511"
	for _, c := range []struct {
		input, outside string
		refused        bool
	}{
		{"throughput.json", `{"num_prompts": 4, "completed": 4, "failed": 0, "output_throughput": 1e9, "note": "` + marker + `"}`, true},
		{StatusFile, `{"arm": "async", "token": "` + marker + `", "state": "succeeded"}`, true},
		{"coord/ranks/ctx-0.json", `{"role": "ctx", "rank": 0, "host": "` + marker + `"}`, true},
		{"ctx-0.log", "mode rank=0 terminal=1\nsummary rank=0 commits=4 " + marker + "\n", false},
		{"coord/env/ctx-0.json", `["PLAIN=` + marker + `"]`, false},
		{"coord/machines/host-other.json", `{"host": "other", "cpuModel": "` + marker + `"}`, false},
	} {
		dir, s, sb, ev, st := makeRun(t, 4)
		outside := filepath.Join(t.TempDir(), "outside")
		os.WriteFile(outside, []byte(c.outside), 0o644)
		in := filepath.Join(dir, c.input)
		os.MkdirAll(filepath.Dir(in), 0o755)
		os.Remove(in)
		if err := os.Symlink(outside, in); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), "bundle")
		err := Write(Input{RunDir: dir, Scenario: s, ScenarioBytes: sb, Evidence: ev, Status: st, Tool: "abbench test"}, dest)
		switch {
		case c.refused && (err == nil || !strings.Contains(err.Error(), filepath.Base(c.input)) || !strings.Contains(err.Error(), "symbolic link")):
			t.Errorf("%s swapped for a link: bundle written (error %v), want it refused naming the file", c.input, err)
		case !c.refused && err != nil:
			t.Errorf("%s swapped for a link: %v", c.input, err)
		}
		filepath.Walk(dest, func(path string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				if data, _ := os.ReadFile(path); strings.Contains(string(data), marker) {
					t.Errorf("%s swapped for a link: the bundle's %s holds the linked file's bytes", c.input, path)
				}
			}
			return nil
		})
		if c.input == "ctx-0.log" && err == nil {
			scopes, _ := os.ReadFile(filepath.Join(dest, ScopesFile))
			if !strings.Contains(string(scopes), "symbolic link") {
				t.Errorf("a log swapped for a link is not recorded as unreadable: %s", scopes)
			}
		}
	}
}
