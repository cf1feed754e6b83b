package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

var (
	sysbenchBanner = lazyregexp.New(`(?m)^sysbench \d`)
	// "transactions:   276702 (1528.57 per sec.)", and the same of queries
	// (1.x) and read/write requests (0.5).
	sysbenchRate       = lazyregexp.New(`(?m)^\s*(transactions|queries|read/write requests):\s+(\d+)\s+\(([0-9.]+) per sec\.\)`)
	sysbenchTime       = lazyregexp.New(`(?m)^\s*total time:\s+([0-9.]+)s\s*$`)
	sysbenchLatency    = lazyregexp.New(`(?m)^[ \t]*(?:Latency \(ms\)|response time):[ \t]*$`)
	sysbenchStat       = lazyregexp.New(`^\s*(min|avg|max|sum|(?:approx\.\s+)?(\d+(?:\.\d+)?)(?:th)? percentile):\s+([0-9.]+)(?:ms)?\s*$`)
	sysbenchFatal      = lazyregexp.New(`(?m)^FATAL: (.*)$`)
	sysbenchUnfinished = lazyregexp.New(`(?m)^Number of unfinished transactions on forced shutdown: (\d+)`)
)

// sysbenchRunMarker opens the output of every run (not of prepare or
// cleanup).
const sysbenchRunMarker = "Running the test with following options:"

// parseSysbench reads sysbench's console output of a database test,
// the 0.5 and the 1.x layouts: transactions and their rate, the run's
// time and latencies. sysbench gives a verdict only when it stops a run
// (FATAL: a fatal error, a forced shutdown). Its "ignored errors" are
// not failures: on an error it may ignore (a deadlock, a lock wait
// timeout, --mysql-ignore-errors) it rolls the transaction back and runs
// it again, and "transactions" counts only those that completed; an error
// it may not ignore stops the run (FATAL) before its statistics, so a run
// that printed them failed no transaction, unless it was forced to shut
// down with transactions unfinished. Runs appended to one log start at
// sysbench's version line.
func (r *Record) parseSysbench(data []byte, spec Spec) {
	r.Unit = UnitTransactions
	run, ok := r.chooseRun(consoleRuns(string(data), sysbenchBanner, sysbenchRunMarker), spec.Result)
	if !ok {
		return
	}
	// sysbench judges a run only by stopping it: FATAL.
	var fatal []string
	for _, m := range sysbenchFatal.FindAllStringSubmatch(run, -1) {
		fatal = append(fatal, "FATAL: "+strings.TrimSpace(m[1]))
	}
	if len(fatal) > 0 {
		r.verdict(false, fatal...)
	}
	rates := sysbenchRate.FindAllStringSubmatch(run, -1)
	if len(rates) == 0 {
		if len(fatal) == 0 {
			r.unreadable("holds no sysbench statistics (\"transactions: N (X per sec.)\"): is it the output of a sysbench database test?")
		}
		return
	}
	for _, m := range rates {
		rate, _ := strconv.ParseFloat(m[3], 64)
		switch m[1] {
		case "transactions":
			r.Completed = atoiCount(r, "transactions", m[2])
			r.Metrics["transactions_per_second"] = rate
		case "queries":
			r.Metrics["queries_per_second"] = rate
		default:
			r.Metrics["read_write_requests_per_second"] = rate
		}
	}
	r.Failed = 0
	if m := sysbenchUnfinished.FindStringSubmatch(run); m != nil {
		r.Failed = atoiCount(r, "unfinished transactions", m[1])
		r.problem("sysbench forced its shutdown with %s transactions unfinished", m[1])
	}
	if m := sysbenchTime.FindStringSubmatch(run); m != nil {
		r.Metrics["duration"], _ = strconv.ParseFloat(m[1], 64)
	}
	r.sysbenchLatencies(run)
}

// sysbenchLatencies reads the latency block of the run's statistics
// (1.x: "Latency (ms):", 0.5: "response time:" in ms): avg, max and the
// percentile, in ms. Not min: a fast query's may print as 0.00.
func (r *Record) sysbenchLatencies(run string) {
	at := sysbenchLatency.FindStringIndex(run)
	if at == nil {
		return
	}
	for _, line := range strings.Split(run[at[1]:], "\n")[1:] {
		m := sysbenchStat.FindStringSubmatch(line)
		if m == nil {
			return
		}
		v, err := strconv.ParseFloat(m[3], 64)
		name := map[string]string{"avg": "mean_latency_ms", "max": "max_latency_ms"}[m[1]]
		if p, ok := percentileName(m[2]); ok {
			name = p + "_latency_ms"
		}
		if err == nil && name != "" {
			r.Metrics[name] = v
		}
	}
}
