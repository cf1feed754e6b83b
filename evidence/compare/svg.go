package compare

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
)

// The plot's size and its axes' place, in pixels.
const svgWidth, svgHeight, svgTop, svgBottom, svgLeft = 640, 360, 50, 300, 80

// SVG plots each run's value per arm, the arms' medians, and the deltas
// with their intervals.
func (r *Result) SVG(w io.Writer) error {
	lo, hi, baseMedian := r.svgRange()
	y := func(v float64) float64 { return svgBottom - (v-lo)/(hi-lo)*(svgBottom-svgTop) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", svgWidth, svgHeight)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, svgHeight)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="14">%s</text>`+"\n", svgLeft, html.EscapeString(fmt.Sprintf("%s: %s (%s, baseline %s)", r.Scenario, r.Verdict, r.Metric, r.Baseline)))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop, svgLeft, svgBottom)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", svgLeft-6, y(v)+4, numfmt.Value(v))
	}
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)">%s</text>`+"\n", (svgTop+svgBottom)/2, (svgTop+svgBottom)/2, html.EscapeString(r.Metric))
	colw := float64(svgWidth-svgLeft-40) / float64(max(len(r.Arms), 1))
	for i, a := range r.Arms {
		cx := float64(svgLeft) + colw*(float64(i)+0.5)
		r.svgArm(&b, a, cx, colw, baseMedian, y)
	}
	if r.Verdict == Censored {
		fmt.Fprintf(&b, `<text x="%d" y="44" fill="#d62728">censored: raw values, not comparable</text>`+"\n", svgLeft)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// svgRange is the span of the value axis, padded, that holds every run's
// value and every delta's interval around the baseline's median.
func (r *Result) svgRange() (lo, hi, baseMedian float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, a := range r.Arms {
		for _, v := range a.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if a.Name == r.Baseline {
			baseMedian = a.Median
		}
	}
	for _, d := range r.Deltas { // the intervals must fit too
		if d.Interval != nil && baseMedian != 0 {
			lo = math.Min(lo, baseMedian*(1+d.Interval[0]/100))
			hi = math.Max(hi, baseMedian*(1+d.Interval[1]/100))
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	pad := (hi - lo) * 0.15
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.05, 1)
	}
	return lo - pad, hi + pad, baseMedian
}

// svgArm draws one arm's column centred at cx: its runs, its median, its
// label and its delta with the interval.
func (r *Result) svgArm(b *strings.Builder, a Arm, cx, colw, baseMedian float64, y func(float64) float64) {
	color := "#1f77b4"
	if a.Name == r.Baseline {
		color = "#7f7f7f"
	}
	for j, v := range a.Values {
		dx := (float64(j) - float64(len(a.Values)-1)/2) * 6
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.7"/>`+"\n", cx+dx, y(v), color)
	}
	if a.N > 0 {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", cx-colw/4, y(a.Median), cx+colw/4, y(a.Median), color)
	}
	label := a.Name
	if a.Name == r.Baseline {
		label += " (baseline)"
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s n=%d</text>`+"\n", cx, svgBottom+20, html.EscapeString(label), a.N)
	for _, d := range r.Deltas {
		if d.Arm != a.Name || d.Pct == nil {
			continue
		}
		text := d.Display
		if d.Interval != nil {
			text += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", d.Interval[0], d.Interval[1])
			y0, y1 := y(baseMedian*(1+d.Interval[0]/100)), y(baseMedian*(1+d.Interval[1]/100))
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#d62728" stroke-width="3"/>`+"\n", cx+colw/3, y0, cx+colw/3, y1)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", cx, svgBottom+38, html.EscapeString(text+" "+d.Verdict))
	}
}
