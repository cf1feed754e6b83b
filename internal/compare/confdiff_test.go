package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
)

// A config-mismatch names the keys the two runs' scenarios differ in, as
// far as the matched digest sees them: not the description, the prompts
// file's path or the arms' env values. Before, it said only that the
// matched digests differed.
func TestScenarioDiffNamesTheKeysThatDiffer(t *testing.T) {
	write := func(yaml string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a := write("name: s\ndescription: one\narms:\n  a: {env: {X: \"1\"}}\n  b: {env: {X: \"0\"}}\nworkload: {prompts: p.jsonl, requests: 128, concurrency: 8}\nroles:\n  - {name: r, command: [x, --n, \"1\"]}\n")
	b := write("name: s\ndescription: two\narms:\n  a: {env: {X: \"2\"}}\n  b: {env: {X: \"3\"}}\nworkload: {prompts: ../p.jsonl, requests: 256, concurrency: 8}\nroles:\n  - {name: r, command: [x, --n, \"2\"]}\n")
	if got, want := scenarioDiff(a, b), "; their scenarios differ in roles.0.command.2 1 against 2, workload.requests 128 against 256"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := scenarioDiff(a, a); got != "" {
		t.Errorf("a scenario against itself: %q", got)
	}
	if got := scenarioDiff(a, t.TempDir()); got != "" {
		t.Errorf("a run without its scenario: %q", got)
	}
}

// The workload line of a multiset digest says the command that gives it:
// abbench digest FILE gives the ordered one, and a newcomer could not
// match the two.
func TestMultisetWorkloadSaysItsCommand(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {110, 111, 109}}), Options{Effect: 1})
	for _, alg := range []digest.Algorithm{digest.TokensSorted, digest.TokensOrdered} {
		r.Workload = &digest.Digest{Algorithm: alg, Count: 256, Hex: strings.Repeat("ab", 32)}
		var b strings.Builder
		if err := NewReport(r).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(b.String(), "abbench digest --algorithm "+string(digest.TokensSorted)+" FILE")
		if said != alg.Sorted() {
			t.Errorf("%s: the command said %v:\n%s", alg, said, b.String())
		}
	}
}

// A scenario that names the ranks' per-prompt records is not told to
// name them: a run that left none did so for its own reasons.
func TestNamesActivationRecordsReadsTheBundlesScenario(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte("name: s\nevidence:\n  activation:\n    role: ctx\n    records: 'activation-{{.Rank}}.records'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !namesActivationRecords(dir) || namesActivationRecords(t.TempDir()) {
		t.Error("the records named in the scenario not read, or read where there is no scenario")
	}
}
