package records

import (
	"bytes"
	"strings"
	"testing"
)

func init() {
	addCorpus(map[string]corpusCase{
		// 20 threads x 50 connections x 20,000 requests, sets only.
		"memtier/console-sets-only-20x50.txt": {Format: "memtier", Metric: "ops_per_second", Unit: UnitOperations, Metrics: map[string]float64{
			"ops_per_second": 102162.01, "mean_latency_ms": 10.065, "kb_per_second": 5431.79,
			"sets_ops_per_second": 102162.01, "sets_mean_latency_ms": 10.065, "sets_kb_per_second": 5431.79},
			Completed: 20000000, Failed: 0, Valid: true},
		// Gets only, more than half of them misses: a miss is the server's answer
		// that the key is not there, not a failed operation.
		"memtier/console-gets-with-misses.txt": {Format: "memtier", Metric: "ops_per_second", Unit: UnitOperations, Metrics: map[string]float64{
			"ops_per_second": 121658.91, "hits_per_second": 55398.14, "misses_per_second": 66260.76, "mean_latency_ms": 8.57, "kb_per_second": 5654.55,
			"gets_ops_per_second": 121658.91, "gets_misses_per_second": 66260.76},
			Completed: 20000000, Failed: 0, Valid: true},
	})
}

// A sets-only run has no gets to rate: the zero rates are left out, not
// censored as implausible; the Totals row's operations are kept, zero or
// not, so a run that did nothing is censored.
func TestMemtierZeroRates(t *testing.T) {
	sets := corpusBytes(t, "memtier/console-sets-only-20x50.txt")
	r := Parse(sets, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second"})
	for _, name := range []string{"gets_ops_per_second", "hits_per_second", "misses_per_second", "waits_ops_per_second"} {
		if _, ok := r.Metrics[name]; ok {
			t.Errorf("a sets-only run has %s", name)
		}
	}
	idle := bytes.Replace(sets, []byte("Totals     102162.01"), []byte("Totals          0.00"), 1)
	if r := Parse(idle, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second"}); r.Valid || !strings.Contains(strings.Join(r.Problems, "; "), "ops_per_second 0 is not plausible") {
		t.Errorf("edit: Totals at 0 ops/sec: valid %v, problems %q", r.Valid, r.Problems)
	}
}

// What memtier's standard output does not count, its standard error says
// (captured into the record with 2>&1): each error reply, a connection
// lost. Each is a minimal edit of a real file (no real capture of them
// was published).
func TestMemtierFailures(t *testing.T) {
	sets := corpusBytes(t, "memtier/console-sets-only-20x50.txt")
	const oom = "server 127.0.0.1:6379 handle error response: -OOM command not allowed when used memory > 'maxmemory'.\n"
	checkEditedSample(t, Spec{Format: "memtier", Metric: "ops_per_second"}, []editedSample{
		{"edit: two error replies on standard error", append([]byte(oom+oom), sets...), 19999998, 2, []string{"2 of 20000000 operations failed"}},
		{"edit: a connection dropped", append([]byte("connection dropped.\n"), sets...), -1, 0,
			[]string{`memtier lost 1 connection(s) ("connection dropped."): their clients stopped before their requests were done`}},
	})
}

// memtierTimed is a real run's output edited into a --test-time run of
// 60 seconds with its standard error captured before it (2>&1): the
// progress lines memtier ends with a carriage return, each second's and
// the last, when every thread was done, which counts the run's
// operations; then each line of the output ended as given.
func memtierTimed(t *testing.T, progress []string, eol string) []byte {
	t.Helper()
	out := bytes.Replace(corpusBytes(t, "memtier/console-sets-only-20x50.txt"), []byte("20000     Requests per client"), []byte("60        Seconds"), 1)
	stderr := "[RUN #1] Preparing benchmark client...\n[RUN #1] Launching threads now...\n" + strings.Join(progress, "\r") + "\r\n"
	return bytes.ReplaceAll(append([]byte(stderr), out...), []byte("\n"), []byte(eol))
}

// A --test-time run, memtier's usual mode, was refused for the count its
// tables do not print. Its count is the last progress line's, printed
// when every thread was done, where standard error was captured; a run
// stopped before (threads still running) is not counted. Without it, or
// in a run of several (whose tables name no run), it is the table's
// Totals rate times the run's seconds. Failed on the old code: every
// timed run was refused.
func TestMemtierTimedRun(t *testing.T) {
	const (
		second = "[RUN #1 2%,   1 secs] 20 threads:      102100 ops,  102100 (avg:  102100) ops/sec, 5.30MB/sec (avg: 5.30MB/sec), 10.07 (avg: 10.07) msec latency"
		last   = "[RUN #1 100%,  60 secs]  0 threads:     6129720 ops,  101500 (avg:  102162) ops/sec, 5.28MB/sec (avg: 5.30MB/sec), 10.09 (avg: 10.06) msec latency"
		newer  = "[RUN #1 100%,  60 secs]  0 threads 1000 conns:     6129720 ops,  101500 (avg:  102162) ops/sec, 5.28MB/sec (avg: 5.30MB/sec), 10.09 (avg: 10.06) msec latency"
	)
	spec := Spec{Format: "memtier", Metric: "ops_per_second"}
	for _, eol := range []string{"\n", "\r\n"} {
		for _, final := range []string{last, newer} {
			r := Parse(memtierTimed(t, []string{second, final}, eol), "m.txt", spec)
			if !r.Valid || r.Completed != 6129720 || r.Requested != 6129720 || r.Metrics["ops_per_second"] != 102162.01 {
				t.Errorf("a timed run (%q lines): valid %v completed %d of %d, ops/sec %v, problems %q", eol, r.Valid, r.Completed, r.Requested, r.Metrics["ops_per_second"], r.Problems)
			}
		}
	}
	r := Parse(memtierTimed(t, []string{second}, "\n"), "m.txt", spec)
	if r.Valid || len(r.Problems) == 0 || r.Problems[0] != "a --test-time run whose last progress line has 20 threads still running: it was stopped before it ended" {
		t.Errorf("a timed run stopped early: valid %v, problems %q", r.Valid, r.Problems)
	}
	const oom = "server 127.0.0.1:6379 handle error response: -OOM command not allowed when used memory > 'maxmemory'.\n"
	r = Parse(append([]byte(oom), memtierTimed(t, []string{second, last}, "\n")...), "m.txt", spec)
	if r.Valid || r.Completed != 6129719 || r.Failed != 1 || r.Problems[0] != "1 of 6129720 operations failed" {
		t.Errorf("a timed run with an error reply: valid %v completed %d failed %d, problems %q", r.Valid, r.Completed, r.Failed, r.Problems)
	}
	// Standard error not captured: 102162.01 operations a second for 60
	// seconds. And --run-count 2: both runs' progress, then the best
	// run's table, whose run no line names.
	stdout := bytes.Replace(corpusBytes(t, "memtier/console-sets-only-20x50.txt"), []byte("20000     Requests per client"), []byte("60        Seconds"), 1)
	two := bytes.Replace(memtierTimed(t, []string{second, last, strings.Replace(last, "RUN #1", "RUN #2", 1)}, "\n"), []byte("ALL STATS"), []byte("BEST RUN RESULTS"), 1)
	for _, c := range []struct {
		name, result string
		data         []byte
	}{{"standard output alone", "", stdout}, {"two runs", "BEST RUN RESULTS", two}} {
		r = Parse(c.data, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second", Result: c.result})
		if !r.Valid || r.Completed != 6129721 || r.Requested != 6129721 {
			t.Errorf("a timed run, %s: valid %v completed %d of %d, problems %q", c.name, r.Valid, r.Completed, r.Requested, r.Problems)
		}
	}
}

// A run of several (--run-count) prints a table per summary: the
// scenario names its own, and a file of several read without a name is
// unreadable, listing them. The two tables here are the two real files
// under the titles such a run prints (an edit).
func TestMemtierRunOfSeveral(t *testing.T) {
	best := bytes.Replace(corpusBytes(t, "memtier/console-sets-only-20x50.txt"), []byte("ALL STATS"), []byte("BEST RUN RESULTS"), 1)
	worst := bytes.Replace(corpusBytes(t, "memtier/console-gets-with-misses.txt"), []byte("ALL STATS"), []byte("WORST RUN RESULTS"), 1)
	both := append(best, worst...)
	r := Parse(both, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second", Result: "WORST RUN RESULTS"})
	if !r.Valid || r.Metrics["ops_per_second"] != 121658.91 {
		t.Errorf("WORST RUN RESULTS: valid %v, ops/sec %v, problems %q", r.Valid, r.Metrics["ops_per_second"], r.Problems)
	}
	r = Parse(both, "m.txt", Spec{Format: "memtier", Metric: "ops_per_second"})
	if r.Valid || !r.Unreadable || r.Problems[0] != `holds 2 results ("BEST RUN RESULTS", "WORST RUN RESULTS"): name this run's with throughput.result` {
		t.Errorf("no result named: valid %v, problems %q", r.Valid, r.Problems)
	}
}

// A file of another tool is unreadable, its root cause.
func TestMemtierUnreadable(t *testing.T) {
	r := Parse(corpusBytes(t, "wrk/cpp-server-latency-distribution.txt"), "m.txt", Spec{Format: "memtier", Metric: "ops_per_second"})
	if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], "no memtier_benchmark statistics table") {
		t.Errorf("a wrk record as memtier: unreadable %v, problems %q", r.Unreadable, r.Problems)
	}
}
