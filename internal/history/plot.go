package history

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/svgplot"
)

// The plot's width and each series' panel, in pixels.
const (
	plotWidth, plotPanel, plotLegend = 760.0, 286.0, 58.0
	plotLeft, plotRight, plotTop     = 90.0, 740.0, 58.0
	plotBottom                       = 214.0 // of the frame within a panel
	plotMaxLabels                    = 8     // x-axis labels a panel has room for
)

// SVG draws one panel per series: the runs' values in the order they
// started, by commit and date on the x axis; the mean of each stretch
// between change points as a level; each change point as a dashed line
// with its change in percent (red when it regressed); and one legend.
func SVG(w io.Writer, series []Series) error {
	height := plotPanel*float64(max(len(series), 1)) + plotLegend
	d := svgplot.New(plotWidth, height)
	for i, s := range series {
		seriesPanel(d, s, float64(i)*plotPanel)
	}
	if len(series) == 0 {
		d.Text(plotLeft, 40, "no runs in the store match", "")
	}
	d.Legend(plotLeft, height-40, plotWidth-10, []svgplot.Item{
		{Mark: svgplot.MarkDot, Color: svgplot.Blue, Label: "a run"},
		{Mark: svgplot.MarkLine, Color: svgplot.Orange, Label: "level: the mean between change points"},
		{Mark: svgplot.MarkDashed, Color: svgplot.Red, Label: "change point: regressed"},
		{Mark: svgplot.MarkDashed, Color: svgplot.Green, Label: "change point: improved"},
	})
	return d.Write(w)
}

// seriesPanel draws one series in the panel whose top is y0.
func seriesPanel(d *svgplot.Doc, s Series, y0 float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		lo, hi = math.Min(lo, *p.Value), math.Max(hi, *p.Value)
	}
	pad := (hi - lo) * 0.08
	f := svgplot.Frame{Left: plotLeft, Right: plotRight, Top: y0 + plotTop, Bottom: y0 + plotBottom, Y: svgplot.NiceAxis(lo-pad, hi+pad, 5)}
	n := len(s.Points)
	x := func(k float64) float64 {
		if n == 1 {
			return (f.Left + f.Right) / 2
		}
		return f.Left + 12 + k/float64(n-1)*(f.Right-f.Left-24)
	}
	dir := "higher is better"
	if !s.HigherBetter {
		dir = "lower is better"
	}
	d.Text(f.Left, y0+20, s.Name(), `font-size="14" font-weight="bold"`)
	d.Text(f.Left, y0+36, fmt.Sprintf("%d run(s), %s to %s, %d change point(s); %s", n, day(s.Points[0].Time), day(s.Points[n-1].Time), len(s.Changes), dir), "")
	d.ValueAxis(f, compare.MetricLabel(s.Metric))
	runAxis(d, f, s.Points, x)
	var pts []string
	for k, p := range s.Points {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(k)), f.YOf(*p.Value)))
	}
	d.Printf(`<polyline fill="none" stroke="%s" stroke-opacity="0.5" points="%s"/>`+"\n", svgplot.Blue, strings.Join(pts, " "))
	levels(d, f, s, x)
	for k, p := range s.Points {
		d.Dot(x(float64(k)), f.YOf(*p.Value), 3, svgplot.Blue, fmt.Sprintf("run %d, %s%s: %s", k+1, p.Time.Format(time.RFC3339), sourceNote(p), numfmt.Value(*p.Value)))
	}
	for _, c := range s.Changes {
		cx := (x(float64(c.Index-1)) + x(float64(c.Index))) / 2
		color := svgplot.Green
		if s.Regression(c) {
			color = svgplot.Red
		}
		d.Line(cx, f.Top, cx, f.Bottom, `stroke="`+color+`" stroke-width="1.5" stroke-dasharray="4 3"`)
		d.Text(cx+4, f.Top+12, fmt.Sprintf("run %d: %+.2f%%", c.Index+1, c.Pct), `font-weight="bold" fill="`+color+`"`)
	}
}

// levels draws the mean of each stretch between change points.
func levels(d *svgplot.Doc, f svgplot.Frame, s Series, x func(float64) float64) {
	bounds := []int{0}
	for _, c := range s.Changes {
		bounds = append(bounds, c.Index)
	}
	bounds = append(bounds, len(s.Points))
	for j := 0; j+1 < len(bounds); j++ {
		var sum float64
		for _, p := range s.Points[bounds[j]:bounds[j+1]] {
			sum += *p.Value
		}
		level := f.YOf(sum / float64(bounds[j+1]-bounds[j]))
		d.Line(x(float64(bounds[j]))-4, level, x(float64(bounds[j+1]-1))+4, level, `stroke="`+svgplot.Orange+`" stroke-width="2.5"`)
	}
}

// runAxis is the x axis: a tick per run, and under at most plotMaxLabels
// of them, evenly spread, the run's commit (when recorded) and date.
func runAxis(d *svgplot.Doc, f svgplot.Frame, points []Entry, x func(float64) float64) {
	every := max(1, int(math.Ceil(float64(len(points))/plotMaxLabels)))
	label, unit := timeTicks(points)
	commits := false
	for k, p := range points {
		xk := x(float64(k))
		d.Line(xk, f.Bottom, xk, f.Bottom+4, `stroke="`+svgplot.Ink+`"`)
		if !labelled(k, len(points), every) {
			continue
		}
		row := f.Bottom + 17
		if p.Source != "" {
			commits = true
			d.Text(xk, row, shortCommit(p.Source), `text-anchor="middle" font-family="DejaVu Sans Mono, monospace" font-size="11"`)
			row += 14
		}
		d.Text(xk, row, label(p.Time), `text-anchor="middle" font-size="11"`)
	}
	title := "runs by start time (" + unit + ")"
	if commits {
		title = "runs by start time (commit, " + unit + ")"
	}
	d.Text((f.Left+f.Right)/2, f.Bottom+60, title, `text-anchor="middle"`)
}

// timeTicks is how the run axis labels a run's start: by date, or, when
// every run started on one day (UTC), by its time of day, the day then
// in the axis's title (a date on every tick would say nothing); unit
// names what a label is.
func timeTicks(points []Entry) (label func(time.Time) string, unit string) {
	if len(points) > 1 && day(points[0].Time.UTC()) == day(points[len(points)-1].Time.UTC()) {
		layout := "15:04"
		if points[len(points)-1].Time.Sub(points[0].Time) < 10*time.Minute {
			layout = "15:04:05" // minutes alone would repeat
		}
		return func(t time.Time) string { return t.UTC().Format(layout) }, "time of day, UTC, " + day(points[0].Time.UTC())
	}
	return day, "date"
}

// labelled says whether run k of n has a label: every every-th, and the
// last when it is not too close to the one before.
func labelled(k, n, every int) bool {
	return k%every == 0 || k == n-1 && k%every > every/2
}

// shortCommit is a commit as a label: its first 8 characters, and "+" when
// the tree was dirty.
func shortCommit(s string) string {
	head, dirty := strings.CutSuffix(s, "+dirty")
	if len(head) > 8 {
		head = head[:8]
	}
	if dirty {
		head += "+"
	}
	return head
}
