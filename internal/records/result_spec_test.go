package records

import "testing"

// A result named for a format of one result per file would be ignored,
// and the scenario would compare a result it did not name: the record is
// unreadable, saying so. A format of several reads it (memtier's tables).
func TestResultOfAFormatOfOneIsUnreadable(t *testing.T) {
	wrk := corpusBytes(t, "wrk/cpp-server-latency-distribution.txt")
	r := Parse(wrk, "w.txt", Spec{Format: "wrk", Metric: "requests_per_second", Result: "GET"})
	if r.Valid || !r.Unreadable || r.Problems[0] != `a wrk record is one result: it takes no throughput.result ("GET")` {
		t.Errorf("wrk with a result: valid %v unreadable %v, problems %q", r.Valid, r.Unreadable, r.Problems)
	}
	memtier := corpusBytes(t, "memtier/console-sets-only-20x50.txt")
	if r := Parse(memtier, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second", Result: "ALL STATS"}); !r.Valid {
		t.Errorf("memtier naming its one table: %q", r.Problems)
	}
}
