package history

import (
	"fmt"
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

// BenchmarkAppendLargeStore adds 7 entries to a store of 100,000 (100
// series of 1,000 runs, as bench/history.sh builds it), a fresh batch each
// time.
func BenchmarkAppendLargeStore(b *testing.B) {
	store := filepath.Join(b.TempDir(), "h.jsonl")
	var entries []Entry
	for i := range 100_000 {
		e := runEntry(fmt.Sprintf("%032x", i), float64(i%1000))
		e.Arm, e.Machine = fmt.Sprintf("arm-%d", i/1000), "1x AMD EPYC 9654 96-Core Processor + 8x NVIDIA H100 80GB HBM3"
		entries = append(entries, e)
	}
	if _, _, err := Append(store, entries); err != nil {
		b.Fatal(err)
	}
	batch := 0
	for b.Loop() {
		var add []Entry
		for i := range 7 {
			add = append(add, runEntry(fmt.Sprintf("new-%d-%d", batch, i), 1))
		}
		batch++
		if n, _, err := Append(store, add); err != nil || n != 7 {
			b.Fatalf("added %d, %v", n, err)
		}
	}
}
