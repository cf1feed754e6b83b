package records

import (
	"math"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// memtier_benchmark's console output (1.x: one Latency column):
//
//	20        Threads
//	50        Connections per thread
//	20000     Requests per client        (a --test-time run: "60        Seconds")
//
//	ALL STATS
//	=========================================================================
//	Type         Ops/sec     Hits/sec   Misses/sec      Latency       KB/sec
//	-------------------------------------------------------------------------
//	Sets       102162.01          ---          ---     10.06500      5431.79
//	Gets            0.00         0.00         0.00      0.00000         0.00
//	Waits           0.00          ---          ---      0.00000          ---
//	Totals     102162.01         0.00         0.00     10.06500      5431.79
//
// A run of several (--run-count) prints BEST RUN RESULTS, WORST RUN
// RESULTS and AGGREGATED AVERAGE RESULTS (N runs) instead of ALL STATS:
// the scenario names its table with throughput.result.
var (
	memtierSetting = lazyregexp.New(`^(\d+)\s+(Threads|Connections per thread|Requests per client|Seconds)\s*$`)
	memtierTitle   = lazyregexp.New(`^(ALL STATS|BEST RUN RESULTS|WORST RUN RESULTS|AGGREGATED AVERAGE RESULTS \(\d+ runs\))\s*$`)
	// What memtier writes to standard error, when the record captured it
	// (2>&1): each error reply, and a connection it lost.
	memtierErrorReply = lazyregexp.New(`^server \S+ handle error response: `)
	memtierDropped    = "connection dropped."
	memtierColumns    = lazyregexp.New(`\s{2,}`)
	// memtierProgress is the progress line memtier prints to standard
	// error each second of a run, ended by a carriage return, and once
	// more when every thread is done ("0 threads"): its ops are then the
	// run's operations, all of them. Later versions add the connections
	// and, when there were any, the connection errors.
	memtierProgress = lazyregexp.New(`^\[RUN #(\d+) [0-9.]+%, +\d+ secs\] +(\d+) threads(?: +\d+ conns)?(?: +(\d+) conn errors)?: +(\d+) ops,`)
)

// memtierRun is what a run's last progress line says: the threads still
// running, its operations and connection errors so far.
type memtierRun struct{ threads, ops, connErrors int }

// memtierTable is one of the output's statistics tables.
type memtierTable struct {
	title   string
	columns []string   // after Type
	rows    [][]string // each the row's type, then its values
}

// parseMemtier reads memtier_benchmark's console output. Its counts are
// operations: a --requests run does threads x connections x requests per
// client, and prints its tables when every client is done. memtier's
// standard output counts no failure: an error reply counts as an
// operation, and a lost connection ends its client early; both are said
// on standard error, which abbench reads when the record holds it. A
// cache miss is no failure: the server answered that the key is not
// there, which the run's key range against the keys stored decides.
func (r *Record) parseMemtier(data []byte, spec Spec) {
	settings := map[string]int{}
	var tables []*memtierTable
	var cur *memtierTable
	errorReplies, dropped := 0, 0
	runs := map[string]memtierRun{}
	for _, line := range memtierLines(string(data)) {
		line = strings.TrimRight(line, " ")
		switch {
		case memtierProgress.MatchString(line):
			m := memtierProgress.FindStringSubmatch(line)
			var run memtierRun
			run.threads, _ = strconv.Atoi(m[2])
			run.connErrors, _ = strconv.Atoi(m[3])
			run.ops, _ = strconv.Atoi(m[4])
			runs[m[1]] = run
		case memtierErrorReply.MatchString(line):
			errorReplies++
		case strings.HasSuffix(line, memtierDropped):
			dropped++
		case memtierSetting.MatchString(line):
			m := memtierSetting.FindStringSubmatch(line)
			settings[m[2]], _ = strconv.Atoi(m[1])
		case memtierTitle.MatchString(line):
			cur = &memtierTable{title: line}
			tables = append(tables, cur)
		case cur != nil:
			cur = cur.add(line)
		}
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.title
	}
	if len(tables) == 0 {
		r.unreadable("no memtier_benchmark statistics table (ALL STATS, or BEST RUN RESULTS of a run of several)")
		return
	}
	r.Unit = UnitOperations
	at, ok := r.choose(names, spec.Result)
	if !ok || !r.memtierMetrics(tables[at]) {
		return
	}
	r.Failed = errorReplies
	switch {
	case dropped > 0:
		r.problem("memtier lost %d connection(s) (%q): their clients stopped before their requests were done", dropped, memtierDropped)
	case settings["Requests per client"] > 0:
		r.Requested = settings["Threads"] * settings["Connections per thread"] * settings["Requests per client"]
		r.Completed = r.Requested - r.Failed
	case settings["Seconds"] > 0:
		r.timedRun(runs, settings["Seconds"])
	}
}

// timedRun reads the count of a --test-time run, which its tables do not
// print: the ops of the progress line memtier printed when every thread
// was done, on standard error (captured into the record with 2>&1);
// without it (standard error not captured), or in a run of several
// (--run-count, whose tables name no run), the table's Totals rate times
// the run's seconds, since memtier's rate is its operations over the time
// it ran, which a timed run's seconds are (to the second).
func (r *Record) timedRun(runs map[string]memtierRun, seconds int) {
	run, ok := runs["1"]
	switch {
	case ok && len(runs) == 1 && run.threads > 0:
		r.problem("a --test-time run whose last progress line has %d threads still running: it was stopped before it ended", run.threads)
		return
	case ok && len(runs) == 1:
		r.Requested = run.ops
		if run.connErrors > 0 {
			r.problem("memtier counted %d connection errors", run.connErrors)
		}
	default:
		r.Requested = int(math.Round(r.Metrics["ops_per_second"] * float64(seconds)))
	}
	r.Completed = r.Requested - r.Failed
}

// memtierLines splits memtier's output into lines: at a line feed, and at
// the carriage return that ends each progress line (a line of nothing but
// a carriage return is one empty line, so that a table of CRLF lines ends
// where it ends).
func memtierLines(text string) []string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		n := len(lines)
		for _, seg := range strings.Split(line, "\r") {
			if seg != "" {
				lines = append(lines, seg)
			}
		}
		if len(lines) == n {
			lines = append(lines, "")
		}
	}
	return lines
}

// add reads one line into the table: its header, its rows; the table
// ends at the first empty line after its rows (nil: no table is open).
func (t *memtierTable) add(line string) *memtierTable {
	fields := strings.Fields(line)
	switch {
	case len(fields) == 0:
		if len(t.rows) > 0 {
			return nil
		}
	case strings.Trim(line, "=-") == "":
	case t.columns == nil && fields[0] == "Type":
		t.columns = memtierColumns.Split(strings.TrimSpace(line), -1)[1:]
	case t.columns != nil:
		t.rows = append(t.rows, fields)
	}
	return t
}

// memtierMetrics reads a table's rows into metrics: the Totals row's
// under their own names (ops_per_second...), every other row's prefixed
// with its type (sets_ops_per_second, gets_misses_per_second). A rate of
// zero is left out (a sets-only run has no gets to rate), but for the
// Totals row's operations: a run that did nothing is censored.
func (r *Record) memtierMetrics(t *memtierTable) bool {
	totals := false
	for _, row := range t.rows {
		if len(row)-1 != len(t.columns) {
			r.unreadable("%s: the %s row has %d values under %d columns", t.title, row[0], len(row)-1, len(t.columns))
			return false
		}
		prefix := strings.ToLower(row[0]) + "_"
		if row[0] == "Totals" {
			prefix, totals = "", true
		}
		for i, col := range t.columns {
			name := memtierMetric(col)
			v, err := strconv.ParseFloat(row[i+1], 64)
			switch {
			case name == "" || row[i+1] == "---":
			case err != nil:
				r.problem("%s: %s of %s is %q, not a number", t.title, col, row[0], row[i+1])
			case v != 0 || prefix+name == "ops_per_second":
				r.Metrics[prefix+name] = v
			}
		}
	}
	if !totals {
		r.unreadable("%s has no Totals row", t.title)
	}
	return totals
}

// memtierMetric names a column's metric: Ops/sec ops_per_second, Latency
// (milliseconds) mean_latency_ms, p99.9 Latency p999_latency_ms, KB/sec
// kb_per_second; "" for a column abbench does not read.
func memtierMetric(col string) string {
	c := strings.ToLower(col)
	switch {
	case c == "latency" || c == "avg. latency":
		return "mean_latency_ms"
	case strings.HasPrefix(c, "p") && strings.HasSuffix(c, " latency"):
		if p, ok := percentileName(strings.TrimSuffix(c[1:], " latency")); ok {
			return p + "_latency_ms"
		}
	case strings.HasSuffix(c, "/sec") && !strings.ContainsAny(c, " ."):
		return strings.TrimSuffix(c, "/sec") + "_per_second"
	}
	return ""
}
