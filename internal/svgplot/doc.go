package svgplot

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// The colours of every plot (matplotlib's, which reviewers know).
const (
	Blue   = "#1f77b4"
	Grey   = "#7f7f7f"
	Red    = "#d62728"
	Green  = "#2ca02c"
	Orange = "#ff7f0e"
	Ink    = "#222222"
	Grid   = "#e5e5e5"
)

// Doc is an SVG document being drawn.
type Doc struct {
	b strings.Builder
}

// New starts a width x height document on a white page.
func New(width, height float64) *Doc {
	d := &Doc{}
	d.Printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans, Verdana, sans-serif" font-size="12" fill="%s">`+"\n", width, height, width, height, Ink)
	d.Printf(`<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", width, height)
	return d
}

// Printf adds raw SVG.
func (d *Doc) Printf(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

// Text writes s (escaped) at x, y; attrs are more attributes, raw.
func (d *Doc) Text(x, y float64, s, attrs string) {
	d.Printf(`<text x="%.1f" y="%.1f" %s>%s</text>`+"\n", x, y, attrs, html.EscapeString(s))
}

// Line draws a line; attrs are its stroke attributes, raw.
func (d *Doc) Line(x1, y1, x2, y2 float64, attrs string) {
	d.Printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" %s/>`+"\n", x1, y1, x2, y2, attrs)
}

// Dot draws a filled circle with a tooltip (none when title is "").
func (d *Doc) Dot(x, y, r float64, color, title string) {
	if title == "" {
		d.Printf(`<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="0.8"/>`+"\n", x, y, r, color)
		return
	}
	d.Printf(`<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="0.8"><title>%s</title></circle>`+"\n", x, y, r, color, html.EscapeString(title))
}

// Write ends the document and writes it to w.
func (d *Doc) Write(w io.Writer) error {
	_, err := io.WriteString(w, d.b.String()+"</svg>\n")
	return err
}

// Frame is a plot area in pixels and the value axis it spans upwards.
type Frame struct {
	Left, Top, Right, Bottom float64
	Y                        Axis
}

// YOf is the pixel row of value v.
func (f Frame) YOf(v float64) float64 {
	return f.Bottom - (v-f.Y.Lo)/(f.Y.Hi-f.Y.Lo)*(f.Bottom-f.Top)
}

// ValueAxis draws f's grid lines, the left axis with its tick labels and
// label (the quantity and its unit), and the frame's bottom line.
func (d *Doc) ValueAxis(f Frame, label string) {
	for _, v := range f.Y.Ticks {
		y := f.YOf(v)
		d.Line(f.Left, y, f.Right, y, `stroke="`+Grid+`"`)
		d.Text(f.Left-6, y+4, f.Y.Label(v), `text-anchor="end"`)
	}
	d.Line(f.Left, f.Top, f.Left, f.Bottom, `stroke="`+Ink+`"`)
	d.Line(f.Left, f.Bottom, f.Right, f.Bottom, `stroke="`+Ink+`"`)
	mid := (f.Top + f.Bottom) / 2
	d.Text(16, mid, label, fmt.Sprintf(`text-anchor="middle" transform="rotate(-90 16 %.1f)"`, mid))
}

// Mark is how a legend item is drawn.
type Mark int

// The marks of legend items.
const (
	MarkDot    Mark = iota // a run's value
	MarkLine               // a level or a median
	MarkDashed             // a reference or a change point
	MarkBar                // an interval
)

// Item is one entry of a legend.
type Item struct {
	Mark         Mark
	Color, Label string
}

// Legend draws items left to right from x on the row y, wrapping before
// maxX.
func (d *Doc) Legend(x, y, maxX float64, items []Item) {
	cx := x
	for _, it := range items {
		w := 26 + 6.6*float64(len([]rune(it.Label)))
		if cx > x && cx+w > maxX {
			cx, y = x, y+18
		}
		d.mark(cx, y-4, it)
		d.Text(cx+20, y, it.Label, "")
		cx += w + 14
	}
}

// mark draws an item's mark centred on the row y, 16 pixels wide; a dot is
// a path, so that counting a plot's circles counts its runs.
func (d *Doc) mark(x, y float64, it Item) {
	switch it.Mark {
	case MarkDot:
		d.Printf(`<path d="M %.1f %.1f a 4 4 0 1 0 8 0 a 4 4 0 1 0 -8 0" fill="%s"/>`+"\n", x+4, y, it.Color)
	case MarkLine:
		d.Line(x, y, x+16, y, `stroke="`+it.Color+`" stroke-width="2"`)
	case MarkDashed:
		d.Line(x, y, x+16, y, `stroke="`+it.Color+`" stroke-width="1.5" stroke-dasharray="4 3"`)
	case MarkBar:
		d.Line(x+8, y-6, x+8, y+6, `stroke="`+it.Color+`" stroke-width="3"`)
	}
}
