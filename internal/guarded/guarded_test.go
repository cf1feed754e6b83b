package guarded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Open reads a regular file of the directory and refuses, as a
// RefusedError naming why, a symbolic link (even one inside the directory),
// a FIFO (without blocking on it), a directory and a path outside.
func TestOpenRefusesWhatIsNotARegularFileOfTheDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "record"), []byte("ok"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "inner"), []byte("inner"), 0o644)
	os.Symlink("record", filepath.Join(dir, "link-in"))
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link-out"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for name, want := range map[string]string{"record": "ok", "sub/inner": "inner", "./sub/../record": "ok"} {
		if data, err := ReadFile(root, name); err != nil || string(data) != want {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	for name, why := range map[string]string{"link-in": "symbolic link", "link-out": "symbolic link", "fifo": "not a regular file", "sub": "not a regular file", "../outside": "outside"} {
		_, err := ReadFile(root, name)
		var refused *RefusedError
		if !errors.As(err, &refused) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v, want it refused: %s", name, err, why)
		}
	}
	if _, err := ReadFile(root, "missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// PrivateDir creates a missing directory 0700 and opens it; it refuses a
// directory others may write, and a link, naming it and the fix.
func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "private")
	root, err := PrivateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	root.Close()
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("created with mode %v", fi.Mode())
	}
	os.Chmod(dir, 0o757)
	if _, err := PrivateDir(dir); err == nil || !strings.Contains(err.Error(), "chmod 700 "+dir) {
		t.Errorf("a directory others may write: %v", err)
	}
	os.Chmod(dir, 0o700)
	os.Symlink(dir, dir+"-link")
	if _, err := PrivateDir(dir + "-link"); err == nil || !strings.Contains(err.Error(), dir+"-link is a symbolic link") {
		t.Errorf("a link: %v", err)
	}
}
