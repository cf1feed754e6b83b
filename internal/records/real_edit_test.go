package records

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// realRecord reads a file of the corpus (testdata/records, as its
// SOURCES.md names it).
func realRecord(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// realRecordEdited is a real file with one minimal edit: old replaced by
// new, n times (-1: every time). It tests a failure rule no published file
// shows; the edit must apply, so the test cannot pass on the clean file.
func realRecordEdited(t *testing.T, rel, old, new string, n int) []byte {
	t.Helper()
	data := realRecord(t, rel)
	if c := bytes.Count(data, []byte(old)); c == 0 || (n > 0 && c < n) {
		t.Fatalf("%s holds %q %d times, the edit needs %d", rel, old, c, max(n, 1))
	}
	return bytes.Replace(data, []byte(old), []byte(new), n)
}
