package history

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func plannedEntry(key, plan string, index int) Entry {
	e := runEntry(key, float64(index))
	e.PlanDigest, e.RunIndex = plan, index
	return e
}

// A planned run given to a second add under another token (a stage run
// again) is refused, naming the stored run's line and both tokens, and
// the store is left as it was; the same run given again is skipped, a run
// of another plan or index added, and an entry that holds the digest
// elsewhere (its source) or no plan at all (an older entry) is no run of
// the plan.
func TestAddRefusesAPlannedRunStoredUnderAnotherToken(t *testing.T) {
	const plan, other = "aaaa1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa1111bbbb2222", "1111aaaa2222bbbb3333cccc4444dddd5555eeee6666ffff1111aaaa2222bbbb"
	store := filepath.Join(t.TempDir(), "h.jsonl")
	older := runEntry("t0", 1) // added before entries kept their plan
	older.Source = plan
	first := []Entry{older, plannedEntry("t1", plan, 1), plannedEntry("t2", plan, 2)}
	if n, _, err := Append(store, first); n != 3 || err != nil {
		t.Fatalf("first add: %d, %v", n, err)
	}
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Append(store, []Entry{plannedEntry("t1", plan, 1), plannedEntry("t2-again", plan, 2)})
	var twice *DuplicateRunError
	if !errors.As(err, &twice) || twice.Stored != "t2" || twice.Given != "t2-again" || twice.RunIndex != 2 || twice.Line != 3 {
		t.Fatalf("a stage run again: %#v (%v), want a duplicate run of line 3, t2 and t2-again", twice, err)
	}
	for _, want := range []string{store + ":3:", "duplicate-run", "run t2;", "t2-again", plan[:12]} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if after, _ := os.ReadFile(store); !bytes.Equal(after, before) {
		t.Errorf("a refused add changed the store:\n%s", after)
	}
	added := []Entry{
		plannedEntry("t1", plan, 1),  // the same run: skipped
		plannedEntry("t3", plan, 3),  // another run of the plan
		plannedEntry("u2", other, 2), // run 2 of another plan
		runEntry("t9", 9),            // a run of no plan
	}
	if n, _, err := Append(store, added); n != 3 || err != nil {
		t.Fatalf("the rest of the plan and another plan: %d added, %v; want 3", n, err)
	}
	entries, _, err := Read(store)
	if err != nil || len(entries) != 6 || entries[4].PlanDigest != other || entries[4].RunIndex != 2 || entries[0].PlanDigest != "" {
		t.Fatalf("read back: %+v, %v", entries, err)
	}
}
