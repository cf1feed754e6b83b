package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	for _, write := range []func(string, []byte, os.FileMode) error{WriteFile, Publish} {
		if err := write(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := write(path, []byte("new content"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if string(got) != "new content" || fi.Mode().Perm() != 0o644 {
			t.Fatalf("got %q mode %v", got, fi.Mode())
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestAbortLeavesTheOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	WriteFile(path, []byte("keep"), 0o644)
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Abort()
	if err := f.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
	got, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(filepath.Dir(path))
	if string(got) != "keep" || len(entries) != 1 {
		t.Fatalf("got %q, %d entries", got, len(entries))
	}
}
