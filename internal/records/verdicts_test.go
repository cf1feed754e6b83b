package records

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The formats whose tool can say valid are exactly those a real file of
// the corpus reads a valid verdict from: a parser that gains or loses a
// verdict changes what validate accepts under {record: valid}.
func TestValidVerdictsAreTheCorpusOnes(t *testing.T) {
	seen := map[string]bool{}
	for rel, c := range corpus {
		data, err := os.ReadFile(filepath.Join("../..", "testdata", "records", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		r := Parse(data, rel, Spec{Format: c.Format, Requested: c.Requests, Result: c.Result, Metric: c.Metric})
		if r.Verdict != nil && r.Verdict.Valid {
			seen[c.Format] = true
		}
	}
	var got []string
	for f := range seen {
		got = append(got, f)
	}
	slices.Sort(got)
	if want := ValidVerdictFormats(); !slices.Equal(got, want) {
		t.Errorf("formats read with a valid verdict %v, SaysValid holds for %v", got, want)
	}
	for _, f := range []string{"fio", "sysbench", "vllm", "regex", "wrk"} {
		if SaysValid(f) {
			t.Errorf("SaysValid(%q): its tool never says a run is valid", f)
		}
	}
}
