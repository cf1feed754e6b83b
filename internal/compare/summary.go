package compare

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/textout"
)

// summaryCauses is how many root causes a censored summary names, each
// cut to summaryReason bytes (three lines of 80 columns): the first is what
// to fix first; the full report lists every one, whole.
const summaryCauses, summaryReason = 2, 230

// clipMiddle cuts s to about n bytes by leaving out its middle: a
// reason's head says what failed and its tail why (a rank's last log
// line ends "executable file not found in $PATH"; cut at the end, the
// summary kept "rank wrapper: role gen r..." and lost the cause).
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/5, n-n*3/5-5
	h, t := s[:head], s[len(s)-tail:]
	// At word boundaries where one is near: "connect: co ...  (3 runs"
	// read as a fault of its own.
	if i := strings.LastIndexByte(h, ' '); i > head/2 {
		h = h[:i]
	}
	if i := strings.IndexByte(t, ' '); i >= 0 && i < tail/2 {
		t = t[i+1:]
	}
	return strings.ToValidUTF8(h, "") + " ... " + strings.ToValidUTF8(t, "")
}

// briefRuns is rs with its runs named by their directories' own names:
// the summary's lines keep room for the cause, and the full report names
// each run's path.
func briefRuns(rs reason.Reason) reason.Reason {
	runs := make([]string, len(rs.Runs))
	for i, run := range rs.Runs {
		runs[i] = filepath.Base(run)
	}
	rs.Runs = runs
	return rs
}

// WriteSummary prints the comparison in a few lines, the answer last: a
// line per arm (n, median, and a treatment's change with its interval),
// a censored one's first root causes instead, where the full report is
// (full: the command that prints it) with the warnings it says counted,
// and the verdict line. It leaves out the design, the tests, the digests and
// each warning's text, which the full report says.
func (r Report) WriteSummary(w io.Writer, full string) error {
	out := textout.New(w)
	r.writeSummaryBody(out, "", false)
	out.Println(fullReportLine(full, len(r.Warnings)))
	out.Println("verdict: " + r.Headline())
	return out.Err()
}

// fullReportLine says where the full report is, and how many warnings
// it says: a count on the verdict line ("; 2 warning(s)") left a reader
// asking where they were.
func fullReportLine(full string, warnings int) string {
	if warnings == 0 {
		return "full report: " + full
	}
	return fmt.Sprintf("full report, with its %d warning(s): %s", warnings, full)
}

// writeSummaryBody is a comparison's lines of a summary: its metric and
// baseline (then note, where a family says how its p were adjusted) and
// a line per arm, or a censored one's first root causes (its metric
// named where a family has several: named).
func (r Report) writeSummaryBody(out *textout.Writer, note string, named bool) {
	// A family names its baseline on each metric's line, and leaves out
	// the baseline's own line: a metric a line per treatment.
	if r.Verdict == Censored {
		which := ""
		if named {
			which = " (" + MetricLabel(r.Metric) + ")"
		}
		out.Printf("CENSORED%s: no delta is reported. Every reason, root causes first:\n", which)
		for i, rs := range r.Reasons {
			if i == summaryCauses {
				out.Printf("  and %d more root cause(s)\n", len(r.Reasons)-i)
				break
			}
			out.Printf("  %s\n", clipMiddle(briefRuns(rs).Lines()[0], summaryReason))
		}
		return
	}
	out.Printf("%s, baseline %s%s:\n", MetricLabel(r.Metric), r.Baseline, note)
	for _, a := range r.Arms {
		if named && a.Name == r.Baseline {
			continue
		}
		delta, interval, _, verdict := r.DeltaCells(a.Name)
		line := fmt.Sprintf("  %-10s n=%-3d median %s", a.Name, a.N, numfmt.Value(a.Median))
		if delta != "" {
			line += "  " + delta
		}
		if interval != "" {
			line += " " + interval
		}
		out.Printf("%s  %s\n", line, verdict)
	}
}

// WriteSummary prints the family in a few lines, the answer last: each
// metric's lines as a lone comparison's summary has them, where the full
// report is (full), and a verdict line a metric, the warnings counted.
func (f *Family) WriteSummary(w io.Writer, full string) error {
	out := textout.New(w)
	for i, r := range f.Comparisons {
		note := ""
		if i == 0 {
			note = fmt.Sprintf(", p Holm-adjusted for %d test(s)", f.Family)
			if f.Correction == SequentialShare {
				note = fmt.Sprintf(", each of %d test(s) at its share of alpha", f.Family)
			}
		}
		NewReport(r).writeSummaryBody(out, note, true)
	}
	warnings := 0
	for _, r := range f.Comparisons {
		warnings += len(r.Warnings)
	}
	out.Println(fullReportLine(full, warnings))
	for _, r := range f.Comparisons {
		out.Println("verdict: " + r.Metric + ": " + NewReport(r).Headline())
	}
	return out.Err()
}

// WriteSummary prints the sweep in a few lines, the answer last: a line
// per treatment of every cell (its change, interval and verdict, held to
// the sweep's alpha), a censored cell's first root cause instead, where the full
// report is (full), and the sweep's verdict with the warnings counted.
func (sw *Sweep) WriteSummary(w io.Writer, full string) error {
	out := textout.New(w)
	metric, baseline, warnings := "", "", 0
	if len(sw.Cells) > 0 {
		metric, baseline = sw.Cells[0].Comparison.Metric, sw.Cells[0].Comparison.Baseline
	}
	head, tail := sw.summaryWords()
	out.Printf("%s, baseline %s, %s:\n", MetricLabel(metric), baseline, head)
	for _, c := range sw.Cells {
		r := NewReport(c.Comparison)
		warnings += len(r.Warnings)
		if r.Verdict == Censored {
			why := ""
			if len(r.Reasons) > 0 {
				why = ": " + r.Reasons[0].Lines()[0]
			}
			out.Printf("  %s censored%s\n", c.Cell, clipMiddle(why, summaryReason))
			continue
		}
		for _, a := range r.Arms {
			if a.Name == r.Baseline {
				continue
			}
			delta, interval, _, verdict := r.DeltaCells(a.Name)
			out.Printf("  %s %s %s %s  %s\n", c.Cell, a.Name, delta, interval, verdict)
		}
	}
	if len(sw.Reasons) > 0 {
		out.Printf("  the sweep is censored: %s\n", sw.Reasons[0].Lines()[0])
	}
	out.Println(fullReportLine(full, warnings))
	out.Printf("sweep: %s (%s)\n", sw.verdictWords(), tail)
	return out.Err()
}

// summaryWords say in the summary's few words how the sweep's tests are
// held to its alpha: in its first line (head) and its verdict's (tail).
func (sw *Sweep) summaryWords() (head, tail string) {
	if sw.Correction == SequentialShare {
		return fmt.Sprintf("each of %d test(s) at its share of alpha", sw.Family), fmt.Sprintf("%d test(s), each at its share of alpha at every look", sw.Family)
	}
	return fmt.Sprintf("p Holm-adjusted for %d test(s)", sw.Family), fmt.Sprintf("Holm's step-down over %d test(s)", sw.Family)
}
