package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeProgram writes a main package printing what into its own module
// under dir and returns its directory.
func writeProgram(t *testing.T, dir, what string) string {
	t.Helper()
	pkg := filepath.Join(dir, "hello")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(" + what + ") }\n",
	} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pkg
}

// cacheHome makes dir the user's cache directory (where Build keeps its
// builds), keeping go's build cache where it was: a cold one would compile
// the standard library again.
func cacheHome(t *testing.T, dir string) {
	t.Helper()
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir) // the cache directory on darwin
}

func run(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return string(out)
}

// A second build of unchanged sources leaves the binary as it was (go
// build linked nothing: the file is the same one); a
// changed source is built again into the same directory; other flags
// build into another directory.
func TestBuildKeepsWhatIsUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program three times (go build)")
	}
	cacheHome(t, t.TempDir())
	pkg := writeProgram(t, t.TempDir(), `"one"`)
	// A program under the temporary directory is built afresh each time:
	// this one stands for the module's own, outside it.
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Build(nil, nil, pkg)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "hello")
	if run(t, bin) != "one" {
		t.Fatal("the first build does not print one")
	}
	// Held open, the first build's file keeps its inode: a relink (a new
	// file renamed or copied in its place) cannot come back with it. go
	// build touches an up-to-date target's time, so the time says nothing.
	first, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	before, err := first.Stat()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Build(nil, nil, pkg)
	if err != nil || again != dir {
		t.Fatalf("second build into %s (%v), want %s", again, err, dir)
	}
	if after, err := os.Stat(bin); err != nil || !os.SameFile(before, after) {
		t.Errorf("an up-to-date binary was written again: %v", err)
	}
	writeProgram(t, filepath.Dir(pkg), `"two"`)
	if _, err := Build(nil, nil, pkg); err != nil || run(t, bin) != "two" {
		t.Errorf("a changed program was not built again: %v", err)
	}
	other, err := Build(nil, []string{"-ldflags=-X=main.unused=1"}, pkg)
	if err != nil || other == dir {
		t.Errorf("other flags built into %s (%v), the same directory", other, err)
	}
}

// A program under the temporary directory (a test's own, new each run) is
// built into a fresh directory, never kept; BuildInto puts it into the
// caller's directory and removes the fresh one.
func TestTemporarySourcesAreNotKept(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	cache := t.TempDir()
	cacheHome(t, cache)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pkg := writeProgram(t, tmp, `"one"`)
	dst := t.TempDir()
	if err := BuildInto(dst, nil, nil, pkg); err != nil {
		t.Fatal(err)
	}
	if run(t, filepath.Join(dst, "hello")) != "one" {
		t.Error("the program built into dst does not print one")
	}
	for _, dir := range []string{filepath.Join(cache, "abbench-testbin"), filepath.Join(cache, "Library", "Caches", "abbench-testbin")} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s: a temporary program's build was kept", dir)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*")); len(left) > 0 {
		t.Errorf("fresh build directories left: %v", left)
	}
}

// A build that fails names the package directory and go build's words.
func TestBuildFailureNamesThePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	cacheHome(t, t.TempDir())
	pkg := writeProgram(t, t.TempDir(), `undefined`)
	_, err := Build(nil, nil, pkg)
	if err == nil || !strings.Contains(err.Error(), pkg) || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("error %v, want one naming %s and go build's error", err, pkg)
	}
}

// A lock another holder keeps past the wait is an error naming the lock
// file, not a wait without end.
func TestLockWaitsAtMostItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	unlock, err := lock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	start := time.Now()
	if _, err := lock(path, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a held lock: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("waited %v for a lock bounded at 200ms", took)
	}
}
