package records

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

var (
	pgbenchBanner    = lazyregexp.New(`(?m)^pgbench \(`)
	pgbenchProcessed = lazyregexp.New(`(?m)^number of transactions actually processed: (\d+)(?:/(\d+))?\s*$`)
	pgbenchFailed    = lazyregexp.New(`(?m)^number of failed transactions: (\d+)`)
	pgbenchSkipped   = lazyregexp.New(`(?m)^number of transactions skipped: (\d+)`)
	pgbenchTPS       = lazyregexp.New(`(?m)^tps = ([0-9.eE+-]+) \((?:without initial connection time|excluding connections establishing)\)`)
	pgbenchLatency   = lazyregexp.New(`(?m)^latency average = ([0-9.eE+-]+) ms`)
	pgbenchConnect   = lazyregexp.New(`(?m)^initial connection time = ([0-9.eE+-]+) ms`)
	// A client that aborted, and why: "client 114 script 0 aborted in
	// command 0 query 0: ERROR: ..." or "client 38 aborted in command 0
	// (SQL) of script 0; perhaps the backend died while processing".
	pgbenchClientAborted = lazyregexp.New(`client \d+ (?:script \d+ )?aborted in command \d+(?: query \d+)?(?: \(\w+\) of script \d+)?[:;]\s*(.*)$`)
)

const pgbenchRunAborted = "Run was aborted; the above results are incomplete"

// parsePgbench reads pgbench's console output: transactions processed
// (of those -t asked for) and failed, tps without the initial connection
// time (pgbench 14 on; "excluding connections establishing" before). Its
// verdict is whether the run was aborted ("Run was aborted; the above
// results are incomplete.", clients aborted), which makes the run
// invalid whatever it counts as failed. Runs appended to one log are
// told apart by pgbench's version line.
func (r *Record) parsePgbench(data []byte, spec Spec) {
	r.Unit = UnitTransactions
	run, ok := r.chooseRun(consoleRuns(string(data), pgbenchBanner, "transaction type:"), spec.Result)
	if !ok {
		return
	}
	if !strings.Contains(run, "transaction type:") && !strings.Contains(run, pgbenchRunAborted) {
		r.unreadable("holds no pgbench summary (\"transaction type:\", \"tps = ...\"): is it pgbench's output?")
		return
	}
	if n := strings.Count(run, "transaction type:"); n > 1 {
		r.unreadable("holds %d pgbench summaries but not the version lines (pgbench 14 on) that tell runs apart", n)
		return
	}
	r.pgbenchVerdict(run)
	if m := pgbenchProcessed.FindStringSubmatch(run); m != nil {
		r.Completed = atoiCount(r, "transactions actually processed", m[1])
		if m[2] != "" {
			// -t: the transactions asked for, all of which must be processed.
			if r.Requested = atoiCount(r, "transactions asked for", m[2]); r.Completed < r.Requested {
				r.problem("%d of the %d transactions asked for were processed", r.Completed, r.Requested)
			}
		}
	}
	if m := pgbenchFailed.FindStringSubmatch(run); m != nil {
		r.Failed = atoiCount(r, "failed transactions", m[1])
	}
	if m := pgbenchSkipped.FindStringSubmatch(run); m != nil && m[1] != "0" {
		r.problem("%s transactions skipped (later than --latency-limit under --rate): never run", m[1])
	}
	for _, metric := range []struct {
		re   *lazyregexp.Regexp
		name string
	}{{pgbenchTPS, "transactions_per_second"}, {pgbenchLatency, "mean_latency_ms"}, {pgbenchConnect, "initial_connection_time_ms"}} {
		if m := metric.re.FindStringSubmatch(run); m != nil {
			if v, err := strconv.ParseFloat(m[1], 64); err == nil {
				r.Metrics[metric.name] = v
			}
		}
	}
}

// atoiCount reads a count of whole digits; -1 (with a problem) when it
// does not fit.
func atoiCount(r *Record, what, digits string) int {
	n, err := strconv.Atoi(digits)
	if err != nil {
		r.problem("%s %s: %v", what, digits, err)
		return -1
	}
	return n
}

// pgbenchVerdict: an aborted run is not valid, its reason naming how
// many clients aborted and why; any other run pgbench completed.
func (r *Record) pgbenchVerdict(run string) {
	var causes []string
	count := map[string]int{}
	aborted := 0
	for _, line := range strings.Split(run, "\n") {
		m := pgbenchClientAborted.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		aborted++
		cause := strings.Join(strings.Fields(m[1]), " ")
		if count[cause] == 0 {
			causes = append(causes, cause)
		}
		count[cause]++
	}
	var reasons []string
	if strings.Contains(run, pgbenchRunAborted) {
		reasons = append(reasons, pgbenchRunAborted)
	}
	if aborted > 0 {
		for i, c := range causes {
			causes[i] = fmt.Sprintf("%s (%d)", c, count[c])
		}
		reasons = append(reasons, fmt.Sprintf("%d clients aborted: %s", aborted, strings.Join(causes, ", ")))
	}
	r.verdict(len(reasons) == 0, reasons...)
}
