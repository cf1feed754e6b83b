package history

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/textout"
)

// Text writes each series: its span, change points (the commit where each
// begins) and confounds.
func Text(w io.Writer, series []Series, d Detector) error {
	out := textout.New(w)
	d = d.defaults()
	if len(series) == 0 {
		out.Println("no runs in the store match (add some with abbench history add)")
		return out.Err()
	}
	for i, s := range series {
		if i > 0 {
			out.Println()
		}
		dir := "higher is better"
		if !s.HigherBetter {
			dir = "lower is better"
		}
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		out.Printf("%s / %s / %s (%s): %d run(s), %s to %s, latest %s\n", s.Scenario, s.Arm, s.Metric, dir,
			len(s.Points), day(first.Time), day(last.Time), numfmt.Value(*last.Value))
		if len(s.Changes) == 0 {
			out.Printf("  no change point (E-Divisive means, p <= %s, at least %d runs a side)\n", numfmt.Value(d.MaxP), d.MinSize)
		}
		for _, c := range s.Changes {
			p := s.Points[c.Index]
			way := "improved"
			if s.Regression(c) {
				way = "regressed"
			}
			out.Printf("  change at run %d (%s%s): %s -> %s (%+.2f%%), %s: %s\n", c.Index+1, p.Time.Format(time.RFC3339), sourceNote(p), numfmt.Value(c.Before), numfmt.Value(c.After), c.Pct, numfmt.PEquals(c.P), way)
		}
		for _, c := range s.Confounds {
			out.Printf("  note: %s\n", c)
		}
	}
	return out.Err()
}

func day(t time.Time) string { return t.Format("2006-01-02") }

func sourceNote(e Entry) string {
	if e.Source == "" {
		return ""
	}
	return ", source " + short(e.Source)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// PerfDB writes every entry as one NDJSON record in the typed-prefix
// convention perf databases use (TensorRT-LLM's among them): each field's
// prefix names its type, b_ boolean, d_ double, l_ integer, s_ string,
// ts_ timestamp (RFC 3339, UTC). Every stored entry is accepted evidence,
// so b_is_valid is true throughout.
func PerfDB(w io.Writer, entries []Entry, f Filter) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if !f.match(e) {
			continue
		}
		rec := map[string]any{
			"b_is_valid": true, "b_higher_is_better": e.HigherBetter, "b_signed": e.Signed,
			"s_kind": e.Kind, "s_key": e.Key, "s_scenario": e.Scenario, "s_arm": e.Arm, "s_metric": e.Metric,
			"s_matched_digest": e.MatchedDigest, "s_machine": e.Machine, "s_source": e.Source,
			"ts_created": e.Time.UTC().Format(time.RFC3339), "ts_added": e.Added.UTC().Format(time.RFC3339),
		}
		if e.Build != "" {
			rec["s_build"] = e.Build
		}
		if e.Value != nil {
			rec["d_value"] = *e.Value
		}
		if e.Kind == KindComparison {
			rec["s_baseline"], rec["s_verdict"], rec["s_method"], rec["l_n"] = e.Baseline, e.Verdict, e.Method, e.N
			if e.DeltaPct != nil {
				rec["d_delta_pct"] = *e.DeltaPct
			}
			if e.Interval != nil {
				rec["d_interval_low_pct"], rec["d_interval_high_pct"] = e.Interval[0], e.Interval[1]
			}
			if e.P != nil {
				rec["d_p"] = *e.P
			}
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// SVG draws one panel per series: the runs' values in order, each side of
// a change point's mean as a level, the change points as dashed lines.
func SVG(w io.Writer, series []Series) error {
	const width, panel, left, right, top, bottom = 760.0, 220.0, 70.0, 20.0, 30.0, 30.0
	var b strings.Builder
	height := panel * float64(max(len(series), 1))
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	for i, s := range series {
		y0 := float64(i) * panel
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range s.Points {
			lo, hi = math.Min(lo, *p.Value), math.Max(hi, *p.Value)
		}
		if hi == lo {
			lo, hi = lo*0.99-1e-9, hi*1.01+1e-9
		}
		pad := (hi - lo) * 0.1
		lo, hi = lo-pad, hi+pad
		n := len(s.Points)
		x := func(k float64) float64 {
			if n == 1 {
				return left + (width-left-right)/2
			}
			return left + k/float64(n-1)*(width-left-right)
		}
		y := func(v float64) float64 { return y0 + top + (hi-v)/(hi-lo)*(panel-top-bottom) }
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", left, y0+18, html.EscapeString(fmt.Sprintf("%s / %s / %s: %d run(s), %d change point(s)", s.Scenario, s.Arm, s.Metric, n, len(s.Changes))))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`+"\n", left, y(lo), width-right, y(lo))
		fmt.Fprintf(&b, `<text x="4" y="%.1f">%.4g</text><text x="4" y="%.1f">%.4g</text>`+"\n", y(hi)+4, hi, y(lo), lo)
		var pts []string
		for k, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(k)), y(*p.Value)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#4472c4" points="%s"/>`+"\n", strings.Join(pts, " "))
		for k, p := range s.Points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="#4472c4"><title>%s</title></circle>`+"\n", x(float64(k)), y(*p.Value),
				html.EscapeString(fmt.Sprintf("run %d, %s%s: %.4g", k+1, p.Time.Format(time.RFC3339), sourceNote(p), *p.Value)))
		}
		// Levels: the mean of each stretch between change points.
		bounds := []int{0}
		for _, c := range s.Changes {
			bounds = append(bounds, c.Index)
		}
		bounds = append(bounds, n)
		for j := 0; j+1 < len(bounds); j++ {
			var sum float64
			for _, p := range s.Points[bounds[j]:bounds[j+1]] {
				sum += *p.Value
			}
			level := sum / float64(bounds[j+1]-bounds[j])
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#70ad47" stroke-width="2"/>`+"\n", x(float64(bounds[j])), y(level), x(float64(bounds[j+1]-1)), y(level))
		}
		for _, c := range s.Changes {
			cx := (x(float64(c.Index-1)) + x(float64(c.Index))) / 2
			color := "#2e7d32"
			if s.Regression(c) {
				color = "#c00000"
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="4 3"/><text x="%.1f" y="%.1f" fill="%s">%+.2f%%</text>`+"\n",
				cx, y0+top, cx, y(lo), color, cx+3, y0+top+12, color, c.Pct)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
