package records

import (
	"bytes"
	"testing"
)

const (
	pgbenchValid   = "pgbench/cluster-380-clients-prepared-valid.txt"
	pgbenchAborted = "pgbench/rds-proxy-600-clients-run-aborted.txt"
)

// No published pgbench output with failed or skipped transactions, of
// -t, or of pgbench 13 was found: the rules are tested on minimal edits
// of the real valid run, each named.
func TestPgbenchRules(t *testing.T) {
	const tps, failed = "transactions_per_second", "number of failed transactions: 0 (0.000%)"
	checkEdited(t, "pgbench", []editedCase{
		{"failed transactions", pgbenchValid, []string{failed, "number of failed transactions: 7 (0.003%)"}, tps, "7 transactions failed"},
		{"skipped transactions", pgbenchValid, []string{failed, failed + "\nnumber of transactions skipped: 12 (0.004%)"}, tps,
			"12 transactions skipped (later than --latency-limit under --rate): never run"},
		{"-t: fewer processed than asked for", pgbenchValid, []string{"processed: 270484", "processed: 270484/300000"}, tps,
			"270484 of the 300000 transactions asked for were processed"},
		{"clients aborted, no 'Run was aborted' line", pgbenchAborted, []string{"pgbench: error: Run was aborted; the above results are incomplete.", ""}, tps,
			`the tool says the run is not valid: 50 clients aborted: ERROR: portal "" does not exist (25), perhaps the backend died while processing (5), ERROR: prepared statement "P_0" already exists (20)`},
		{"no pgbench output", "mlperf/offline-valid-10-samples-summary.txt", nil, tps,
			`holds no pgbench summary ("transaction type:", "tps = ..."): is it pgbench's output?`},
	})
}

// pgbench 13 and earlier print tps twice, including and excluding the
// connections; the headline is the one without them (a minimal edit of
// the real run into that layout).
func TestPgbenchOldTPSLines(t *testing.T) {
	data := edited(t, pgbenchValid, "tps = 15382.399208 (without initial connection time)",
		"tps = 15000.5 (including connections establishing)\ntps = 15382.399208 (excluding connections establishing)")
	r := Parse(data, pgbenchValid, Spec{Format: "pgbench", Metric: "transactions_per_second"})
	if !r.Valid || r.Metrics["transactions_per_second"] != 15382.399208 {
		t.Fatalf("valid %v, tps %v, problems %q", r.Valid, r.Metrics["transactions_per_second"], r.Problems)
	}
}

// Runs appended to one log (two real outputs, one after the other) are
// named by their place: without a name the log is unreadable; without
// the version lines that tell them apart, too.
func TestPgbenchAppendedRuns(t *testing.T) {
	log := append(append([]byte{}, corpusFile(t, pgbenchValid)...), corpusFile(t, pgbenchAborted)...)
	for _, c := range []struct {
		result string
		valid  bool
		tps    float64
		first  string
	}{
		{"", false, 0, `holds 2 results ("1", "2"): name this run's with throughput.result`},
		{"1", true, 15382.399208, ""},
		{"2", false, 3365.804033, "the tool says the run is not valid: Run was aborted; the above results are incomplete; 50 clients aborted: "},
		{"3", false, 0, `holds no result named "3" (it holds "1", "2")`},
	} {
		r := Parse(log, "log", Spec{Format: "pgbench", Metric: "transactions_per_second", Result: c.result})
		if r.Valid != c.valid || r.Metrics["transactions_per_second"] != c.tps || (c.first != "" && !bytes.HasPrefix([]byte(r.Problems[0]), []byte(c.first))) {
			t.Errorf("result %q: valid %v, tps %v, problems %q", c.result, r.Valid, r.Metrics["transactions_per_second"], r.Problems)
		}
	}
	bare := bytes.ReplaceAll(log, []byte("pgbench (16.4 (Homebrew), server 15.6)\n"), nil)
	if r := Parse(bare, "log", Spec{Format: "pgbench", Metric: "transactions_per_second", Result: "1"}); r.Valid || len(r.Problems) == 0 ||
		r.Problems[0] != "holds 2 pgbench summaries but not the version lines (pgbench 14 on) that tell runs apart" {
		t.Errorf("two runs without version lines: valid %v, problems %q", r.Valid, r.Problems)
	}
}
