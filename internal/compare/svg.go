package compare

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/svgplot"
)

// The plot's size and its frame, in pixels: the right margin holds the
// axis of the change against the baseline's median.
const svgWidth, svgHeight = 720.0, 440.0

var svgFrame = svgplot.Frame{Left: 90, Top: 76, Right: svgWidth - 96, Bottom: 330}

// SVG plots each run's value per arm with the arms' medians, the
// baseline's median as a reference across the plot, and each treatment's
// delta with its interval, on the value axis (around the baseline's
// median) and on a second axis in percent; the title says the verdict.
func (r Report) SVG(w io.Writer) error {
	base := r.baselineMedian()
	f := svgFrame
	lo, hi := r.svgRange(base)
	f.Y = svgplot.NiceAxis(lo, hi, 6)
	d := svgplot.New(svgWidth, svgHeight)
	r.svgTitle(d)
	d.ValueAxis(f, MetricLabel(r.Metric))
	withDelta := base > 0 && r.Verdict != Censored
	if withDelta {
		svgPercentAxis(d, f, base)
		d.Line(f.Left, f.YOf(base), f.Right, f.YOf(base), `stroke="`+svgplot.Grey+`" stroke-dasharray="4 3"`)
	}
	colw := (f.Right - f.Left) / float64(max(len(r.Arms), 1))
	for i, a := range r.Arms {
		r.svgArm(d, f, a, f.Left+colw*(float64(i)+0.5), colw, base)
	}
	d.Legend(f.Left, f.Bottom+70, svgWidth-10, r.svgLegend(withDelta))
	return d.Write(w)
}

// svgTitle is the scenario and metric, then the verdict with each delta's
// interval and p (the headline), or why the comparison is censored.
func (r Report) svgTitle(d *svgplot.Doc) {
	d.Text(svgFrame.Left, 22, fmt.Sprintf("%s: %s, baseline %s", r.Scenario, r.Metric, r.Baseline), `font-size="15" font-weight="bold"`)
	color := map[string]string{Improved: svgplot.Green, Regressed: svgplot.Red, Censored: svgplot.Red}[r.Verdict]
	if color == "" {
		color = svgplot.Ink
	}
	d.Text(svgFrame.Left, 42, r.Headline(), `font-weight="bold" fill="`+color+`"`)
	if r.Verdict == Censored {
		var codes []string
		for _, rs := range r.Reasons {
			codes = append(codes, string(rs.Code))
		}
		d.Text(svgFrame.Left, 60, "raw values, not comparable: "+strings.Join(codes, ", "), `fill="`+svgplot.Red+`"`)
	}
}

func (r Report) baselineMedian() float64 {
	for _, a := range r.Arms {
		if a.Name == r.Baseline {
			return a.Median
		}
	}
	return 0
}

// svgRange is the span of the value axis: every run's value and every
// delta's interval around the baseline's median, with a margin.
func (r Report) svgRange(base float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range r.Arms {
		for _, v := range a.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, d := range r.Deltas { // the intervals must fit too
		if d.Interval != nil && base != 0 && r.Verdict != Censored {
			lo = math.Min(lo, base*(1+d.Interval[0]/100))
			hi = math.Max(hi, base*(1+d.Interval[1]/100))
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	pad := (hi - lo) * 0.08
	if lo >= 0 {
		// A quantity that is never negative (a time, a throughput) gets no
		// axis below zero: a margin there would read as values that can be.
		return math.Max(lo-pad, 0), hi + pad
	}
	return lo - pad, hi + pad
}

// svgPercentAxis is the right axis: the change against the baseline's
// median, in percent, at nice steps of its own.
func svgPercentAxis(d *svgplot.Doc, f svgplot.Frame, base float64) {
	pct := func(v float64) float64 { return (v/base - 1) * 100 }
	axis := svgplot.NiceAxis(pct(f.Y.Lo), pct(f.Y.Hi), 6)
	d.Line(f.Right, f.Top, f.Right, f.Bottom, `stroke="`+svgplot.Ink+`"`)
	for _, p := range axis.Ticks {
		y := f.YOf(base * (1 + p/100))
		if y < f.Top-0.5 || y > f.Bottom+0.5 {
			continue
		}
		label := axis.Label(p) + "%"
		if p > 0 {
			label = "+" + label
		}
		d.Line(f.Right, y, f.Right+4, y, `stroke="`+svgplot.Ink+`"`)
		d.Text(f.Right+7, y+4, label, "")
	}
	mid := (f.Top + f.Bottom) / 2
	x := svgWidth - 14
	d.Text(x, mid, "change vs baseline median (%)", fmt.Sprintf(`text-anchor="middle" transform="rotate(90 %.1f %.1f)"`, x, mid))
}

// svgArm draws one arm's column centred at cx: its runs, its median, its
// label and, for a treatment, its delta's interval as a bar with the
// estimate on it and the numbers under the column.
func (r Report) svgArm(d *svgplot.Doc, f svgplot.Frame, a Arm, cx, colw, base float64) {
	color := svgplot.Blue
	label := a.Name
	if a.Name == r.Baseline {
		color, label = svgplot.Grey, a.Name+" (baseline)"
	}
	for j, v := range a.Values {
		dx := (float64(j) - float64(len(a.Values)-1)/2) * math.Min(7, colw/3/float64(max(len(a.Values), 1)))
		d.Dot(cx+dx, f.YOf(v), 4, color, fmt.Sprintf("%s run %d: %s", a.Name, j+1, numfmt.Value(v)))
	}
	if a.N > 0 {
		d.Line(cx-colw/4, f.YOf(a.Median), cx+colw/4, f.YOf(a.Median), `stroke="`+color+`" stroke-width="2.5"`)
	}
	d.Text(cx, f.Bottom+20, fmt.Sprintf("%s n=%d", label, a.N), `text-anchor="middle" font-weight="bold"`)
	if r.Verdict == Censored {
		return
	}
	for _, dl := range r.Deltas {
		if dl.Arm != a.Name || dl.Pct == nil {
			continue
		}
		text := dl.Display
		if dl.Interval != nil && base > 0 {
			text += fmt.Sprintf(" %s [%+.2f%%, %+.2f%%]", decide.IntervalLevel(dl.Alpha), dl.Interval[0], dl.Interval[1])
			svgInterval(d, f, cx+colw/3, base, *dl.Pct, *dl.Interval, VerdictColor(dl.Verdict))
		}
		d.Text(cx, f.Bottom+38, text+", "+dl.Verdict, `text-anchor="middle"`)
	}
}

// VerdictColor is the colour of a change by what it means: improved
// green, regressed (or censored) red, anything else (inconclusive,
// no-change) grey, so that a plot reads right before its labels are read.
func VerdictColor(verdict string) string {
	switch verdict {
	case Improved:
		return svgplot.Green
	case Regressed, Censored:
		return svgplot.Red
	}
	return svgplot.Grey
}

// svgInterval draws an interval of the change at x in color: a bar with
// caps from its low to its high end and a diamond at the estimate, on the
// value axis around the baseline's median.
func svgInterval(d *svgplot.Doc, f svgplot.Frame, x, base, pct float64, iv [2]float64, color string) {
	y0, y1, ye := f.YOf(base*(1+iv[0]/100)), f.YOf(base*(1+iv[1]/100)), f.YOf(base*(1+pct/100))
	stroke := `stroke="` + color + `" stroke-width="3"`
	d.Line(x, y0, x, y1, stroke)
	d.Line(x-6, y0, x+6, y0, stroke)
	d.Line(x-6, y1, x+6, y1, stroke)
	d.Printf(`<path d="M %.1f %.1f l 6 6 l -6 6 l -6 -6 z" fill="%s"/>`+"\n", x, ye-6, color)
}

// svgLegend names every mark the plot draws.
func (r Report) svgLegend(withDelta bool) []svgplot.Item {
	items := []svgplot.Item{
		{Mark: svgplot.MarkDot, Color: svgplot.Blue, Label: "a run (treatment)"},
		{Mark: svgplot.MarkDot, Color: svgplot.Grey, Label: "a run (baseline)"},
		{Mark: svgplot.MarkLine, Color: svgplot.Blue, Label: "arm median"},
	}
	if withDelta {
		items = append(items, svgplot.Item{Mark: svgplot.MarkDashed, Color: svgplot.Grey, Label: "baseline median"})
		label := "change and its interval (right axis)"
		if level := r.IntervalHeader(); level != "interval" {
			label = "change vs baseline, " + level + " (right axis)"
		}
		// The bar's colour is its verdict's: the legend names the one drawn.
		color := svgplot.Grey
		for _, dl := range r.Deltas {
			if dl.Interval != nil {
				color = VerdictColor(dl.Verdict)
			}
		}
		items = append(items, svgplot.Item{Mark: svgplot.MarkBar, Color: color, Label: label})
	}
	return items
}

// WriteSVGFile writes the plot of every run's value per arm to path.
func (r Report) WriteSVGFile(path string) error {
	return writeTo(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, r.SVG)
}
