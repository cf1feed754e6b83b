package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// wrk's summary, as wrk 4 prints it (the Latency Distribution block only
// with --latency):
//
//	Running 10s test @ http://localhost:8080/
//	  4 threads and 100 connections
//	  Thread Stats   Avg      Stdev     Max   +/- Stdev
//	    Latency     1.90ms    2.36ms  64.56ms   99.10%
//	    Req/Sec    12.22k     3.10k   19.04k    71.57%
//	  Latency Distribution
//	     50%    2.07ms
//	  487530 requests in 10.10s, 170.17MB read
//	  Socket errors: connect 0, read 88124, write 0, timeout 80
//	  Non-2xx or 3xx responses: 88124
//	Requests/sec:  48268.48
//	Transfer/sec:     16.85MB
var (
	wrkRequests   = lazyregexp.New(`^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m|h), ([0-9.]+)([KMGTP]?)B read\s*$`)
	wrkSocket     = lazyregexp.New(`^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*$`)
	wrkStatus     = lazyregexp.New(`^\s*Non-2xx or 3xx responses: (\d+)\s*$`)
	wrkRate       = lazyregexp.New(`^\s*Requests/sec:\s*([0-9.]+)\s*$`)
	wrkTransfer   = lazyregexp.New(`^\s*Transfer/sec:\s*([0-9.]+)([KMGTP]?)B\s*$`)
	wrkLatency    = lazyregexp.New(`^\s*Latency\s+([0-9.]+)(us|ms|s|m|h)\s+[0-9.]+(?:us|ms|s|m|h)\s+([0-9.]+)(us|ms|s|m|h)\s+[0-9.]+%\s*$`)
	wrkPercentile = lazyregexp.New(`^\s*([0-9.]+)%\s+([0-9.]+)(us|ms|s|m|h)\s*$`)
)

// wrkMillis are wrk's time units in milliseconds (it prints us and ms
// below a second, s and m above).
var wrkMillis = map[string]float64{"us": 1e-3, "ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3}

// binaryBytes are wrk's byte units (powers of 1024).
var binaryBytes = map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}

// parseWrk reads wrk's console summary. wrk counts the responses it read
// ("N requests in"); a non-2xx or 3xx response and a socket error
// (connect, read, write, timeout) are failed requests. A request can be
// counted twice (a server that answers 500 and closes the connection
// gives a status error and a read error), so the failures are at most the
// requests wrk counted; the problem quotes wrk's own numbers.
func (r *Record) parseWrk(data []byte, _ Spec) {
	summaries, rate := 0, false
	requests, failures := 0, 0
	inDistribution := false
	for _, line := range strings.Split(string(data), "\n") {
		if inDistribution {
			if m := wrkPercentile.FindStringSubmatch(line); m != nil {
				if p, ok := percentileName(m[1]); ok {
					r.Metrics[p+"_latency_ms"] = wrkNumber(m[2]) * wrkMillis[m[3]]
				}
				continue
			}
			inDistribution = false
		}
		switch m := matchAny(line, wrkRequests, wrkSocket, wrkStatus, wrkRate, wrkTransfer, wrkLatency); {
		case strings.TrimSpace(line) == "Latency Distribution":
			inDistribution = true
		case m.re == wrkRequests:
			summaries++
			requests = int(wrkNumber(m.groups[1]))
			r.Metrics["duration"] = wrkNumber(m.groups[2]) * wrkMillis[m.groups[3]] / 1000
		case m.re == wrkSocket:
			r.problem("wrk counted socket errors: connect %s, read %s, write %s, timeout %s", m.groups[1], m.groups[2], m.groups[3], m.groups[4])
			for _, n := range m.groups[1:] {
				failures += int(wrkNumber(n))
			}
		case m.re == wrkStatus:
			r.problem("wrk counted %s non-2xx or 3xx responses", m.groups[1])
			failures += int(wrkNumber(m.groups[1]))
		case m.re == wrkRate:
			rate = true
			r.Metrics["requests_per_second"] = wrkNumber(m.groups[1])
		case m.re == wrkTransfer:
			r.Metrics["transfer_bytes_per_second"] = wrkNumber(m.groups[1]) * binaryBytes[m.groups[2]]
		case m.re == wrkLatency:
			r.Metrics["mean_latency_ms"] = wrkNumber(m.groups[1]) * wrkMillis[m.groups[2]]
			r.Metrics["max_latency_ms"] = wrkNumber(m.groups[3]) * wrkMillis[m.groups[4]]
		}
	}
	switch {
	case summaries == 0 || !rate:
		r.unreadable("no wrk summary (its lines \"N requests in Ts, B read\" and \"Requests/sec:\")")
		return
	case summaries > 1:
		r.unreadable("holds %d wrk summaries: give abbench one run's output per file", summaries)
		return
	}
	r.Requested = requests
	r.Failed = min(failures, requests)
	r.Completed = requests - r.Failed
}

// wrkNumber reads a number a pattern has already matched as digits and
// dots; one that still does not parse (1.2.3) reads as 0, which finish
// censors as implausible.
func wrkNumber(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// lineMatch is the first pattern of a list a line matches, and its groups.
type lineMatch struct {
	re     *lazyregexp.Regexp
	groups []string
}

func matchAny(line string, res ...*lazyregexp.Regexp) lineMatch {
	for _, re := range res {
		if m := re.FindStringSubmatch(line); m != nil {
			return lineMatch{re, m}
		}
	}
	return lineMatch{}
}
