package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A file is read whole on a file system whose reads return less than
// asked for before its end (a FUSE or network one may), never cut at the
// first short read; an empty one is empty. Not parallel: the read is the package's.
func TestReadFileReadsOnAfterAShortRead(t *testing.T) {
	sysRead = func(fd int, p []byte) (int, error) { return syscall.Read(fd, p[:min(len(p), 5)]) }
	t.Cleanup(func() { sysRead = syscall.Read })
	want := bytes.Repeat([]byte("plan.json "), 100)
	path := filepath.Join(t.TempDir(), PlanFile)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d of %d bytes (%v)", len(got), len(want), err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := readFile(empty); err != nil || len(got) != 0 {
		t.Fatalf("an empty file: %q, %v", got, err)
	}
}
