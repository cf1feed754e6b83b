package records

import (
	"bytes"
	"testing"
)

const sysbenchRun = "sysbench/1.0.20-read-only-100-threads-300s.txt"

// No complete sysbench output of a run stopped by a fatal error or
// forced to shut down was published: the rules are tested on minimal
// edits of a real run, each named.
func TestSysbenchRules(t *testing.T) {
	const tps = "transactions_per_second"
	fatal := "FATAL: mysql_drv_query() returned error 2013 (Lost connection to MySQL server during query)"
	forced := "FATAL: The --max-time limit has expired, forcing shutdown..."
	checkEdited(t, "sysbench", []editedCase{
		{"forced shutdown, transactions unfinished", sysbenchRun, []string{"SQL statistics:", forced + "\nSQL statistics:",
			"\nGeneral statistics:", "\nNumber of unfinished transactions on forced shutdown: 3\n\nGeneral statistics:"}, tps,
			"the tool says the run is not valid: " + forced},
		{"not sysbench", "pgbench/cluster-380-clients-prepared-valid.txt", nil, tps,
			`holds no sysbench statistics ("transactions: N (X per sec.)"): is it the output of a sysbench database test?`},
	})
	// A fatal error stops the run before its statistics (the real run cut
	// there, the error line in their place).
	data := corpusFile(t, sysbenchRun)
	cut := bytes.Index(data, []byte("SQL statistics:"))
	data = append(data[:cut:cut], fatal+"\n"...)
	r := Parse(data, sysbenchRun, Spec{Format: "sysbench", Metric: tps})
	if r.Valid || r.Unreadable || r.Problems[0] != "the tool says the run is not valid: "+fatal {
		t.Errorf("stopped by FATAL: valid %v unreadable %v, problems %q", r.Valid, r.Unreadable, r.Problems)
	}
	forcedRun := Parse(edited(t, sysbenchRun, "\nGeneral statistics:", "\nNumber of unfinished transactions on forced shutdown: 3\n\nGeneral statistics:"), sysbenchRun, Spec{Format: "sysbench", Metric: tps})
	if forcedRun.Valid || forcedRun.Failed != 3 {
		t.Errorf("forced shutdown: valid %v failed %d, problems %q", forcedRun.Valid, forcedRun.Failed, forcedRun.Problems)
	}
}

// The runs appended to one log are named by their place.
func TestSysbenchAppendedRuns(t *testing.T) {
	const rel = "sysbench/1.0.17-runs-appended.txt"
	data := corpusFile(t, rel)
	for result, tps := range map[string]float64{"1": 222.13, "2": 239.21, "3": 248.20, "4": 267.64} {
		if r := Parse(data, rel, Spec{Format: "sysbench", Metric: "transactions_per_second", Result: result}); !r.Valid || r.Metrics["transactions_per_second"] != tps {
			t.Errorf("run %s: valid %v tps %v, want %v (problems %q)", result, r.Valid, r.Metrics["transactions_per_second"], tps, r.Problems)
		}
	}
	for result, want := range map[string]string{"": `holds 4 results ("1", "2", "3", "4"): name this run's with throughput.result`,
		"5": `holds no result named "5" (it holds "1", "2", "3", "4")`} {
		if r := Parse(data, rel, Spec{Format: "sysbench", Metric: "transactions_per_second", Result: result}); r.Valid || !r.Unreadable || r.Problems[0] != want {
			t.Errorf("result %q: valid %v, problems %q", result, r.Valid, r.Problems)
		}
	}
}
