package evidence

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func readAll(t *testing.T, s Scope) ([]string, []int64, int64, error) {
	t.Helper()
	var lines []string
	var offs []int64
	n, err := s.Read(func(line []byte, off int64) {
		lines = append(lines, string(line))
		offs = append(offs, off)
	}, nil)
	return lines, offs, n, err
}

func TestScopeReadsFromOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	prefix := "old attempt line\nanother\n"
	os.WriteFile(path, []byte(prefix+"first\n\nbad \xff\xfe bytes\nlast without newline"), 0o644)
	lines, offs, n, err := readAll(t, Scope{File: path, Offset: int64(len(prefix))})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"first", "", "bad \xff\xfe bytes", "last without newline"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q", lines)
	}
	if offs[0] != int64(len(prefix)) || offs[2] != int64(len(prefix)+7) {
		t.Fatalf("offsets %v", offs)
	}
	fi, _ := os.Stat(path)
	if n != fi.Size()-int64(len(prefix)) {
		t.Fatalf("read %d bytes, want %d", n, fi.Size()-int64(len(prefix)))
	}
}

func TestScopeKeepsBytesVerbatim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	content := "skip\nkeep \x00\xff this\r\nand this"
	os.WriteFile(path, []byte(content), 0o644)
	var kept bytes.Buffer
	if _, err := (Scope{File: path, Offset: 5}).Read(func([]byte, int64) {}, &kept); err != nil {
		t.Fatal(err)
	}
	if kept.String() != content[5:] {
		t.Fatalf("kept %q", kept.String())
	}
}

func TestScopeLongLines(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 17 MiB line, a fifth of this package's quick-loop CPU: go test without -short runs it")
	}
	path := filepath.Join(t.TempDir(), "log")
	long := strings.Repeat("x", 17<<20) + " mode rank=3"
	os.WriteFile(path, []byte("a\n"+long+"\nb\n"), 0o644)
	lines, _, _, err := readAll(t, Scope{File: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || len(lines[1]) != len(long) || !strings.HasSuffix(lines[1], "mode rank=3") || lines[2] != "b" {
		t.Fatalf("%d lines, second of %d bytes", len(lines), len(lines[1]))
	}
}

func TestScopeStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	os.WriteFile(path, []byte("0123456789\n"), 0o644)
	fi, _ := os.Stat(path)
	inode := fi.Sys().(*syscall.Stat_t).Ino
	cases := map[string]Scope{
		"past the end": {File: path, Offset: 100},
		"negative":     {File: path, Offset: -1},
		"missing":      {File: filepath.Join(dir, "none"), Offset: 0},
	}
	// A replaced file: same name, another inode.
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("0123456789 and more\n"), 0o644)
	os.Rename(other, path)
	cases["replaced"] = Scope{File: path, Offset: 5, Inode: inode}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := readAll(t, s)
			var se *StaleError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a StaleError", err)
			}
			if se.Reason().Code != "stale-evidence" {
				t.Fatalf("code %s", se.Reason().Code)
			}
		})
	}
	if _, _, _, err := readAll(t, Scope{File: path, Offset: 20}); err != nil {
		t.Fatalf("offset at the exact end: %v", err)
	}
}

func TestRequiredLiteral(t *testing.T) {
	cases := map[string]string{
		`mode rank=(?P<rank>\d+) terminal=(?P<t>\d)`: "mode rank=",
		`shutdown_summary rank=(?P<rank>\d+)`:        "shutdown_summary rank=",
		`(?i)mode`:                                   "",
		`a|b`:                                        "",
		`x`:                                          "x",
	}
	for pattern, want := range cases {
		if got := string(requiredLiteral(pattern)); got != want {
			t.Errorf("%q: got %q, want %q", pattern, got, want)
		}
	}
}
