package history

import (
	"path/filepath"
	"strings"
	"testing"
)

// An add knows a key is stored whatever form its line has: as Append
// writes it, with spaces, with its fields in another order, with escapes
// in its strings.
func TestAppendFindsKeysInLinesOfAnyForm(t *testing.T) {
	lines := storeLines(t)
	run, cmp := lines[0], lines[1]
	spaced := strings.ReplaceAll(strings.Replace(run, `"t0k3n"`, `"spaced"`, 1), `":`, `": `)
	reordered := `{"key":"reordered",` + strings.TrimPrefix(strings.Replace(run, `"key":"t0k3n",`, "", 1), "{")
	escaped := strings.Replace(strings.Replace(run, `"t0k3n"`, `"esc\u0061ped"`, 1), `"scenario":"nightly"`, `"scenario":"a,\"key\":\"decoy"`, 1)
	store := filepath.Join(t.TempDir(), "h.jsonl")
	writeFile(t, store, strings.Join([]string{run, cmp, spaced, reordered, escaped}, "\n")+"\n")
	if _, _, err := Read(store); err != nil {
		t.Fatal(err)
	}
	again := []Entry{runEntry("t0k3n", 1), runEntry("spaced", 1), runEntry("reordered", 1), runEntry("escaped", 1), runEntry("decoy", 1)}
	k := Entry{Kind: KindComparison, Key: "k"}
	n, _, err := Append(store, append(again, k))
	if err != nil || n != 1 {
		t.Fatalf("Append = %d, %v; want only decoy added (the other keys are stored)", n, err)
	}
	entries, _, _ := Read(store)
	if last := entries[len(entries)-1]; last.Key != "decoy" {
		t.Fatalf("added %q, want decoy", last.Key)
	}
}
