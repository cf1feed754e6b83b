package compare

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the sweep as a report fit to paste into a pull request:
// one table of every cell's arms, as the text report's, then each cell's
// design, reasons and warnings, and each cell's verdict.
func (sw *Sweep) Markdown(w io.Writer) error {
	var b strings.Builder
	metric, baseline, higher := "", "", true
	if len(sw.Cells) > 0 {
		r := sw.Cells[0].Comparison
		metric, baseline, higher = r.Metric, r.Baseline, r.HigherIsBetter
	}
	fmt.Fprintf(&b, "## abbench sweep: %s %s\n\n", verdictIcon[sw.Verdict], sw.verdictWords())
	fmt.Fprintf(&b, "Scenario **%s**, metric `%s` (%s is better), baseline **%s**: %d cell(s), each compared within itself; %s.\n\n",
		sw.Scenario, metric, map[bool]string{true: "higher", false: "lower"}[higher], baseline, len(sw.Cells), sw.heldWords())
	if len(sw.Reasons) > 0 {
		b.WriteString("**Censored sweep**: it is not complete. Every reason:\n\n| code | arm | detail |\n| --- | --- | --- |\n")
		for _, rs := range sw.Reasons {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", rs.Code, rs.Arm, mdEscape(rs.Said()))
		}
		b.WriteString("\n")
	}
	// A sequential sweep's raw p is its p (each cell's test at its share
	// of alpha: nothing adjusts it), so only Holm's sweep has the column.
	raw := sw.Correction != SequentialShare
	head := "| cell | arm | n | median | delta | " + sw.intervalHeader() + " | raw p | " + sw.pHeader() + " | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
	if !raw {
		head = "| cell | arm | n | median | delta | " + sw.intervalHeader() + " | " + sw.pHeader() + " | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n"
	}
	b.WriteString("### Results\n\n" + head)
	for _, c := range sw.Cells {
		for _, row := range c.rows() {
			if !raw {
				row = append(row[:6], row[7:]...)
			}
			for i := range row {
				row[i] = mdEscape(row[i])
			}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		}
	}
	b.WriteString("\n### Verdicts\n\n")
	for _, c := range sw.Cells {
		fmt.Fprintf(&b, "- **%s**: %s\n", c.Cell, mdEscape(c.headline(sw.Correction, sw.Family)))
	}
	for _, c := range sw.Cells {
		c.mdDetail(&b)
	}
	return writeText(w, b.String())
}

// mdDetail is the cell's section: a censored cell's reasons, else its
// design and how each delta was decided; its warnings.
func (c SweepCell) mdDetail(b *strings.Builder) {
	r := NewReport(c.Comparison)
	fmt.Fprintf(b, "\n### Cell %s\n\n", c.Cell)
	if r.Verdict == Censored {
		r.mdCensored(b)
	} else {
		fmt.Fprintf(b, "- design: %s\n", mdEscape(r.DesignLine()))
		for _, d := range r.Deltas {
			fmt.Fprintf(b, "- %s: %s\n", d.Arm, mdEscape(d.How()))
		}
		fmt.Fprintf(b, "- matched digest: `%s`\n", short(r.MatchedDigest))
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "- warning: %s\n", mdEscape(w))
	}
}
