package compare

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/abbench/abbench/internal/svgplot"
)

// The sweep plot's size: one chart, however many cells.
const sweepSVGHeight = 440.0

// WriteSVGFile writes the sweep's plot to path (SVG).
func (sw *Sweep) WriteSVGFile(path string) error {
	return writeTo(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, sw.SVG)
}

// SVG draws one chart of the change against the baseline by cell: each
// treatment's estimate with its interval, coloured by its verdict held
// to the sweep's alpha (VerdictColor), on an axis in percent around zero;
// a censored cell says so where its change would be.
func (sw *Sweep) SVG(w io.Writer) error {
	f := svgFrame
	f.Right = svgWidth - 30
	lo, hi := sw.changeRange()
	f.Y = svgplot.NiceAxis(lo, hi, 6)
	d := svgplot.New(svgWidth, sweepSVGHeight)
	metric, baseline := "", ""
	if len(sw.Cells) > 0 {
		metric, baseline = sw.Cells[0].Comparison.Metric, sw.Cells[0].Comparison.Baseline
	}
	d.Text(f.Left, 22, fmt.Sprintf("%s: change of %s by cell, baseline %s", sw.Scenario, MetricLabel(metric), baseline), `font-size="15" font-weight="bold"`)
	title := fmt.Sprintf("sweep %s; %s", sw.Verdict, sw.heldWords())
	d.Text(f.Left, 42, title, `font-weight="bold" fill="`+VerdictColor(sw.Verdict)+`"`)
	d.ValueAxis(f, "change vs baseline median (%)")
	if f.Y.Lo < 0 && f.Y.Hi > 0 {
		d.Line(f.Left, f.YOf(0), f.Right, f.YOf(0), `stroke="`+svgplot.Ink+`" stroke-dasharray="4 3"`)
	}
	colw := (f.Right - f.Left) / float64(max(len(sw.Cells), 1))
	for i, c := range sw.Cells {
		sw.svgCell(d, f, c, f.Left+colw*(float64(i)+0.5), colw)
	}
	d.Legend(f.Left, f.Bottom+70, svgWidth-10, []svgplot.Item{
		{Mark: svgplot.MarkBar, Color: svgplot.Green, Label: "improved"},
		{Mark: svgplot.MarkBar, Color: svgplot.Red, Label: "regressed"},
		{Mark: svgplot.MarkBar, Color: svgplot.Grey, Label: "neither (inconclusive, no change)"},
	})
	return d.Write(w)
}

// svgCell draws a cell's treatments side by side in its column centred
// at cx, each its change and interval, and names the cell under them.
func (sw *Sweep) svgCell(d *svgplot.Doc, f svgplot.Frame, c SweepCell, cx, colw float64) {
	r := NewReport(c.Comparison)
	d.Text(cx, f.Bottom+20, "cell "+c.Cell, `text-anchor="middle" font-weight="bold"`)
	if r.Verdict == Censored {
		d.Text(cx, f.YOf(math.Max(f.Y.Lo, math.Min(0, f.Y.Hi))), "censored", `text-anchor="middle" fill="`+svgplot.Red+`"`)
		d.Text(cx, f.Bottom+38, "censored", `text-anchor="middle" fill="`+svgplot.Red+`"`)
		return
	}
	n := max(len(r.Deltas), 1)
	for j, dl := range r.Deltas {
		x := cx + (float64(j)-float64(n-1)/2)*math.Min(40, colw/float64(n+1))
		color := VerdictColor(dl.Verdict)
		if dl.Pct == nil {
			continue
		}
		if dl.Interval != nil {
			stroke := `stroke="` + color + `" stroke-width="3"`
			y0, y1 := f.YOf(dl.Interval[0]), f.YOf(dl.Interval[1])
			d.Line(x, y0, x, y1, stroke)
			d.Line(x-6, y0, x+6, y0, stroke)
			d.Line(x-6, y1, x+6, y1, stroke)
		}
		d.Printf(`<path d="M %.1f %.1f l 6 6 l -6 6 l -6 -6 z" fill="%s"><title>%s</title></path>`+"\n", x, f.YOf(*dl.Pct)-6, color, svgEscape(c.headline(sw.Correction, sw.Family)))
		label := fmt.Sprintf("%s %+.1f%%, %s", dl.Arm, *dl.Pct, dl.Verdict)
		d.Text(cx, f.Bottom+38+14*float64(j), label, `text-anchor="middle" fill="`+color+`"`)
	}
}

// changeRange is the span of the change axis: every estimate and interval
// of every cell and zero, with a margin; nothing beyond.
func (sw *Sweep) changeRange() (lo, hi float64) {
	lo, hi = 0, 0
	for _, c := range sw.Cells {
		for _, dl := range c.Comparison.Deltas {
			if dl.Pct != nil {
				lo, hi = math.Min(lo, *dl.Pct), math.Max(hi, *dl.Pct)
			}
			if dl.Interval != nil {
				lo, hi = math.Min(lo, dl.Interval[0]), math.Max(hi, dl.Interval[1])
			}
		}
	}
	if lo == hi {
		return -1, 1
	}
	pad := (hi - lo) * 0.08
	return lo - pad, hi + pad
}

func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
