package version

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A go build without VCS information still names a version, and a release
// build's -ldflags -X names its own.
func TestBuiltBinariesNameAVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds abbench")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-buildvcs=false"}, Fallback},
		{[]string{"-buildvcs=false", "-ldflags", "-X github.com/abbench/abbench/cmd/abbench/internal/version.Version=v9.8.7"}, "v9.8.7"},
	} {
		bin := filepath.Join(dir, "abbench")
		build := exec.Command("go", append(append([]string{"build", "-o", bin}, c.flags...), "../..")...)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) || strings.Contains(string(out), "(devel)") {
			t.Fatalf("%v: --version says %q (%v), want %s", c.flags, out, err, c.want)
		}
	}
}
