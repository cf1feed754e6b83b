package evidence

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeldScopeReadsOnlyItsBytes: a scope held (the bytes a verifier
// hashed) is read from them, as the file would be, with the file's
// checks; the file on disk, changed or gone, is never read.
func TestHeldScopeReadsOnlyItsBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	os.WriteFile(path, []byte("changed on disk\n"), 0o644)
	// A line past maxLine, cut there as the file's would be; under go test
	// -short a short one, left uncut: the 64 MiB line was most of this
	// package's quick-loop CPU, and go test without -short holds the cut.
	long, want := strings.Repeat("x", maxLine), maxLine
	if testing.Short() {
		long, want = "x", len("long x")
	}
	held := []byte("old\nfirst\nlong " + long + "\nlast without newline")
	lines, offs, n, err := readAll(t, Scope{File: path, Offset: 4}.Held(held))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 3 || lines[0] != "first" || len(lines[1]) != want || lines[2] != "last without newline" || offs[0] != 4 || n != int64(len(held)-4) {
		t.Fatalf("%d lines (%q first), offsets %v, %d bytes read", len(lines), lines[0], offs, n)
	}
	os.Remove(path)
	for name, s := range map[string]Scope{"past the end": {File: path, Offset: int64(len(held) + 1)}, "negative": {File: path, Offset: -1}} {
		var se *StaleError
		if _, _, _, err := readAll(t, s.Held(held)); !errors.As(err, &se) {
			t.Errorf("%s: got %v, want a StaleError", name, err)
		}
	}
	if lines, _, _, err := readAll(t, Scope{File: path}.Held(nil)); err != nil || len(lines) != 0 {
		t.Errorf("an empty file held: %q, %v", lines, err)
	}
}
