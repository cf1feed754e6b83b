package records

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// corpusBytes reads a real file of testdata/records, by its corpus name
// (tool/file), for a test that edits or combines it.
func corpusBytes(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// editedSample is a real file edited in the test to show a failure rule no
// published file shows: what its record must count and say.
type editedSample struct {
	name              string // says what was edited
	data              []byte
	completed, failed int
	problems          []string // the record's first problems, in order
}

// checkEditedSample parses each edited file with spec: each is invalid, with
// its counts and its first problems.
func checkEditedSample(t *testing.T, spec Spec, cases []editedSample) {
	t.Helper()
	for _, c := range cases {
		r := Parse(c.data, c.name, spec)
		if r.Valid || r.Completed != c.completed || r.Failed != c.failed || len(r.Problems) < len(c.problems) || !slices.Equal(r.Problems[:len(c.problems)], c.problems) {
			t.Errorf("%s: valid %v, completed %d failed %d, problems %q; want %d %d, first %q", c.name, r.Valid, r.Completed, r.Failed, r.Problems, c.completed, c.failed, c.problems)
		}
	}
}
