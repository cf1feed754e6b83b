package records

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

var (
	ncclOutOfBounds = lazyregexp.New(`^#\s*Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)`)
	ncclAvgBusBW    = lazyregexp.New(`^#\s*Avg bus bandwidth\s*:\s*(\S+)`)
	// ncclFailure is the line nccl-tests prints when an NCCL or CUDA call
	// fails, before it aborts.
	ncclFailure = lazyregexp.New(`Test (NCCL |CUDA )?failure`)
)

// ncclRun is what one nccl-tests run printed.
type ncclRun struct {
	countsWrong  bool     // the columns are #wrong (counts), not error (magnitudes)
	sizes        []uint64 // each row's message size in bytes, in order
	unchecked    int      // sizes whose results were not checked (N/A)
	wrong        []string // the sizes with wrong values, as said
	failed       int
	peak         float64
	avgLines     []string
	outOfBounds  []string // the Out of bounds lines' count and word
	failureLines []string
}

// parseNCCLTests reads the console output of an nccl-tests binary
// (all_reduce_perf, alltoall_perf, ...): each message size's row is a
// unit of work, one with values counted #wrong (out of place or in place)
// a failed one; "# Out of bounds values : N FAILED" is its verdict;
// "# Avg bus bandwidth" the headline. A run without validation (-c 0: the
// columns say N/A) is invalid: nccl-tests did not check what the
// collective computed, and a wrong result can be a fast one.
func (r *Record) parseNCCLTests(data []byte, _ Spec) {
	r.Unit = UnitSizes
	var run ncclRun
	for _, line := range strings.Split(string(data), "\n") {
		run.line(strings.TrimSpace(line))
	}
	switch {
	case len(run.avgLines) > 1:
		r.unreadable("holds %d nccl-tests runs (%d \"# Avg bus bandwidth\" lines): give each run's output its own file", len(run.avgLines), len(run.avgLines))
		return
	case len(run.failureLines) > 0:
		r.verdict(false, run.failureLines...)
	case len(run.outOfBounds) > 0 && run.outOfBounds[0] == "0 OK":
		r.verdict(true)
	case len(run.outOfBounds) > 0:
		r.verdict(false, "Out of bounds values : "+run.outOfBounds[0])
	}
	if n := len(run.sizes); n > 0 {
		r.Requested, r.Failed, r.Completed, r.Sweep = n, run.failed, n-run.failed, run.sizes
	}
	for _, w := range run.wrong {
		r.problem("%s", w)
	}
	if run.unchecked > 0 {
		r.problem("%d of %d sizes were not checked (#wrong N/A: validation off): nccl-tests did not check the results; run it with -c 1", run.unchecked, len(run.sizes))
	}
	if len(run.avgLines) == 1 {
		if v, err := strconv.ParseFloat(run.avgLines[0], 64); err == nil {
			r.Metrics["bus_bandwidth"] = v
		} else {
			r.problem("# Avg bus bandwidth %q is not a number", run.avgLines[0])
		}
	}
	if len(run.sizes) > 0 {
		r.Metrics["peak_bus_bandwidth"] = run.peak
	}
}

// line reads one line of the output.
func (run *ncclRun) line(line string) {
	if m := ncclOutOfBounds.FindStringSubmatch(line); m != nil {
		run.outOfBounds = append(run.outOfBounds, m[1]+" "+m[2])
		return
	}
	if m := ncclAvgBusBW.FindStringSubmatch(line); m != nil {
		run.avgLines = append(run.avgLines, m[1])
		return
	}
	if ncclFailure.MatchString(line) {
		run.failureLines = append(run.failureLines, line)
		return
	}
	if strings.HasPrefix(line, "#") {
		if strings.Contains(line, "#wrong") {
			run.countsWrong = true
		}
		return
	}
	run.row(strings.Fields(line))
}

// row reads a size's row: its size first, and last the out-of-place and
// in-place time, algbw, busbw and #wrong (or error) columns; a line of
// another shape (NCCL's INFO lines) is not a row.
func (run *ncclRun) row(f []string) {
	if len(f) < 11 {
		return
	}
	size, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return
	}
	cols := f[len(f)-8:]
	var busbw [2]float64
	var wrong [2]string
	for place := range 2 {
		c := cols[place*4:]
		for _, v := range c[:3] {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return
			}
		}
		busbw[place], _ = strconv.ParseFloat(c[2], 64)
		wrong[place] = c[3]
	}
	run.sizes = append(run.sizes, size)
	run.peak = max(run.peak, busbw[0], busbw[1])
	bad := false
	for place, w := range wrong {
		switch n, err := strconv.ParseFloat(w, 64); {
		case w == "N/A":
			if place == 0 {
				run.unchecked++
			}
		case err != nil:
			run.wrong = append(run.wrong, fmt.Sprintf("size %s B: %q is no count of wrong values", f[0], w))
			bad = true
		case run.countsWrong && n > 0:
			run.wrong = append(run.wrong, fmt.Sprintf("size %s B: %s wrong values %s", f[0], w, [2]string{"out of place", "in place"}[place]))
			bad = true
		}
	}
	if bad {
		run.failed++
	}
}
