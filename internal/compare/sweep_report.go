package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// SweepFormats are the report formats a sweep renders in.
var SweepFormats = []string{"table", "json", "markdown", "junit", "csv"}

// Render writes the sweep's report in format (one of SweepFormats); failOn
// marks a cell's JUnit comparison case failed as --fail-on would.
func (sw *Sweep) Render(w io.Writer, format, failOn string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(sw)
	case "table":
		return sw.WriteText(w)
	case "markdown":
		return sw.Markdown(w)
	case "junit":
		return sw.JUnit(w, failOn)
	case "csv":
		return sw.CSV(w)
	}
	return fmt.Errorf("a sweep's comparison is reported as %s, not %s: its cells are one table", strings.Join(SweepFormats, " or "), format)
}

// WriteText prints the sweep for a person: one table of every cell's
// arms (each cell's verdict, estimate with its interval, the p it was
// decided at: Holm-adjusted, or its share's), then what censored a cell or the sweep, each cell's design and
// warnings, and each cell's verdict.
func (sw *Sweep) WriteText(w io.Writer) error {
	out := textout.New(w)
	metric, baseline := "", ""
	if len(sw.Cells) > 0 {
		metric, baseline = sw.Cells[0].Comparison.Metric, sw.Cells[0].Comparison.Baseline
	}
	out.Printf("sweep of %s on %s, baseline %s: %d cell(s), each compared within itself; %s\n\n",
		sw.Scenario, metric, baseline, len(sw.Cells), sw.heldWords())
	var rows [][]string
	for _, c := range sw.Cells {
		rows = append(rows, c.textRows()...)
	}
	// The change and its interval share a column, and the raw p is left
	// to the verdict lines below: so the table fits 80 columns.
	if err := texttable.Write(out, []string{"cell", "arm", "n", "median", "delta, " + sw.intervalHeader(), sw.pHeader(), "verdict"}, rows); err != nil {
		return err
	}
	if len(sw.Reasons) > 0 {
		out.Printf("\nCENSORED sweep: it is not complete. Every reason:\n")
		writeReasons(out, sw.Reasons)
	}
	for _, c := range sw.Cells {
		c.writeDetail(out)
	}
	out.Println()
	for _, c := range sw.Cells {
		out.Printf("verdict %s: %s\n", c.Cell, c.headline(sw.Correction, sw.Family))
	}
	out.Printf("sweep: %s (%s)\n", sw.verdictWords(), sw.familyWords())
	return out.Err()
}

// verdictWords is the sweep's verdict as its verdict lines say it: an
// accepted sweep with its tests' verdicts counted ("accepted: 2
// improved, 1 inconclusive"), for "accepted" alone reads as if every cell
// won; a censored one as it is.
func (sw *Sweep) verdictWords() string {
	if sw.Verdict == Censored {
		return sw.Verdict
	}
	count := map[string]int{}
	for _, c := range sw.Cells {
		for _, d := range c.Comparison.Deltas {
			count[d.Verdict]++
		}
	}
	var said []string
	for _, v := range []string{Improved, Regressed, NoChange, Inconclusive} {
		if count[v] > 0 {
			said = append(said, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	if len(said) == 0 {
		return sw.Verdict
	}
	return sw.Verdict + ": " + strings.Join(said, ", ")
}

// heldWords says how the sweep's tests are held to its alpha, as its
// reports' first line has it.
func (sw *Sweep) heldWords() string {
	if sw.Correction == SequentialShare {
		return fmt.Sprintf("each of a family of %d test(s) held to its share of alpha at every look, a cell's stop too", sw.Family)
	}
	return fmt.Sprintf("p Holm-adjusted for a family of %d test(s)", sw.Family)
}

// familyWords names the sweep's family and how it is held, as its
// verdict line has it.
func (sw *Sweep) familyWords() string {
	if sw.Correction == SequentialShare {
		return fmt.Sprintf("%d test(s), every treatment of every cell, each at its share of alpha at every look, a cell's stop too", sw.Family)
	}
	return fmt.Sprintf("Holm's step-down over %d test(s): every treatment of every cell, a censored cell's included", sw.Family)
}

// pHeader labels the tables' column of the p each test was decided at:
// Holm's adjusted p, or a sequential sweep's own (at its share's level).
func (sw *Sweep) pHeader() string {
	if sw.Correction == SequentialShare {
		return "p"
	}
	return "holm p"
}

// intervalHeader labels the interval column with the level every cell's
// intervals share, else "interval".
func (sw *Sweep) intervalHeader() string {
	header := ""
	for _, c := range sw.Cells {
		if c.Comparison.Verdict == Censored {
			continue
		}
		h := NewReport(c.Comparison).IntervalHeader()
		if header != "" && h != header {
			return "interval"
		}
		header = h
	}
	if header == "" {
		return "interval"
	}
	return header
}

// rows are the cell's arms as the sweep's tables list them: cell, arm,
// n, median, delta, interval, raw p, the p decided at (Holm-adjusted, or
// a sequential sweep's own), verdict.
func (c SweepCell) rows() [][]string {
	r := NewReport(c.Comparison)
	var rows [][]string
	for _, a := range r.Arms {
		delta, interval, _, verdict := r.DeltaCells(a.Name)
		raw, holm := "", ""
		if p, ok := c.RawP[a.Name]; ok {
			raw = numfmt.P(p)
			if d := deltaByArm(r.Deltas, a.Name); d != nil && d.P != nil {
				holm = numfmt.P(*d.P)
			}
		}
		if r.Verdict == Censored && a.Name != r.Baseline {
			verdict = Censored
		}
		rows = append(rows, []string{c.Cell, a.Name, fmt.Sprint(a.N), numfmt.Value(a.Median), delta, interval, raw, holm, verdict})
	}
	if len(r.Arms) == 0 {
		rows = append(rows, []string{c.Cell, "", "0", "", "", "", "", "", r.Verdict})
	}
	return rows
}

// textRows are rows as the text table lists them: the delta and its
// interval in one column and no raw p (the cell's verdict line says it),
// so that the table fits 80 columns.
func (c SweepCell) textRows() [][]string {
	var out [][]string
	for _, r := range c.rows() {
		out = append(out, []string{r[0], r[1], r[2], r[3], strings.TrimSpace(r[4] + " " + r[5]), r[7], r[8]})
	}
	return out
}

func deltaByArm(ds []Delta, arm string) *Delta {
	for i := range ds {
		if ds[i].Arm == arm {
			return &ds[i]
		}
	}
	return nil
}

// writeDetail is what a person needs beside the table: a censored
// cell's reasons, else its design and how each delta was decided; its
// warnings.
func (c SweepCell) writeDetail(out *textout.Writer) {
	r := NewReport(c.Comparison)
	out.Printf("\ncell %s:", c.Cell)
	if r.Verdict == Censored {
		out.Printf(" CENSORED, no delta is reported (the other cells stand). Every reason, root causes first:\n")
		writeReasons(out, r.Reasons)
	} else {
		out.Printf(" design: %s\n", r.DesignLine())
		for _, d := range r.Deltas {
			out.Printf("  %s: %s\n", d.Arm, d.How())
		}
		if r.Workload != nil {
			out.Printf("  workload: %s\n  matched:  %s\n", r.Workload.Fit("  workload: ", termwidth.Of(out)), r.MatchedDigest)
		}
	}
	for _, w := range r.Warnings {
		out.Printf("  warning: %s\n", w)
	}
}

func writeReasons(out *textout.Writer, rs []reason.Reason) {
	for _, r := range rs {
		for _, line := range r.Lines() {
			out.Printf("  %s\n", line)
		}
	}
}

// headline is the cell's verdict line, then, when Holm adjusted the
// sweep (correction), each treatment's adjusted and raw p, named so: the
// line's own p, where a test decided, is the adjusted one, and a bare
// "p=" beside a raw p read as the cell's own test. A sequential sweep's
// line is the cell's own: its interval and p at the level of its share.
func (c SweepCell) headline(correction string, family int) string {
	h := NewReport(c.Comparison).Headline()
	if correction != Holm {
		return h
	}
	for _, d := range c.Comparison.Deltas {
		if raw, ok := c.RawP[d.Arm]; ok && d.P != nil {
			h += fmt.Sprintf("; %s Holm-adjusted %s for the sweep's %d tests (raw %s)", d.Arm, numfmt.PEquals(*d.P), family, numfmt.PEquals(raw))
		}
	}
	return h
}
