package rundir_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/sourcetest"
)

// TestNoRunDirectoryLiterals fails when a run-directory name (a string
// constant of names.go, read from the source so the test lists none
// itself) is spelled as a literal outside rundir in non-test code: as a
// file name (it has a dot or is LATEST/job_id), or as a path element given
// to filepath.Join. The simulated server (cmd/disaggsim) is the system
// under test, not abbench, and is left out, as are build outputs.
func TestNoRunDirectoryLiterals(t *testing.T) {
	names := sourcetest.StringConstants(t, "names.go", 10)
	for _, lit := range sourcetest.Literals(t, sourcetest.ModuleRoot(t, "../.."), "internal/rundir", "cmd/disaggsim", "out", "bin") {
		s := lit.Value
		c, ok := names[s]
		if ok && (lit.Joined || strings.Contains(s, ".") || s == strings.ToUpper(s) || strings.Contains(s, "_")) {
			t.Errorf("run-directory name spelled outside rundir: %s: %q (use rundir.%s)", lit.Pos, s, c)
		}
	}
}

// TestImportBoundaries fails when evidence, its bundles or its statistics
// depend on the process controller or the launchers, or when rundir (which
// the rank wrapper links) depends on more than the standard library and
// abbench's own leaf packages.
func TestImportBoundaries(t *testing.T) {
	root := sourcetest.ModuleRoot(t, "../..")
	// Every library package is under internal/: mod is their common prefix.
	const mod = "github.com/abbench/abbench/internal/"
	checked := []string{"evidence", "bundle", "compare", "rundir", "scenarios"}
	// One go list for every package: each go list loads the module again
	// (a few tenths of a second of CPU each).
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}
	for _, pkg := range checked {
		args = append(args, mod+pkg)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list of %v: %v", checked, err)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 0 {
			deps[strings.TrimPrefix(f[0], mod)] = f[1:]
		}
	}
	for _, pkg := range checked {
		if _, ok := deps[pkg]; !ok {
			t.Fatalf("go list said nothing of %s:\n%s", pkg, out)
		}
		for _, d := range deps[pkg] {
			for _, banned := range []string{"arms", "launcher", "campaign", "armpipeline"} {
				if d == mod+banned || strings.HasPrefix(d, mod+banned+"/") {
					t.Errorf("%s imports %s (through go list's Deps): it must not depend on the process side", pkg, d)
				}
			}
		}
	}
	allowed := map[string]bool{mod + "rundir": true, mod + "atomicfile": true, mod + "reason": true}
	for _, d := range deps["rundir"] {
		// A standard library path has no dot in its first element.
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") && !allowed[d] {
			t.Errorf("rundir depends on %s: it may use only the standard library, internal/atomicfile and reason", d)
		}
	}
}
