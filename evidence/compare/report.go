package compare

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

func (r *Result) armEnvDiff() (keys []string, differing map[string]bool) {
	differing = map[string]bool{}
	seen := map[string]bool{}
	for _, a := range r.Arms {
		for k := range a.Env {
			seen[k] = true
		}
	}
	keys = slices.Sorted(maps.Keys(seen))
	for _, k := range keys {
		first, same := "", true
		for i, a := range r.Arms {
			if i == 0 {
				first = a.Env[k]
			} else if a.Env[k] != first {
				same = false
			}
		}
		differing[k] = !same
	}
	return keys, differing
}

func fmtValue(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// DeltaCells are an arm's delta, interval, p value and verdict as a
// report prints them ("" where there is none).
func (r *Result) DeltaCells(arm string) (delta, interval, p, verdict string) {
	if arm == r.Baseline {
		return "", "", "", "baseline"
	}
	verdict = "not comparable"
	for _, d := range r.Deltas {
		if d.Arm != arm {
			continue
		}
		delta, verdict = d.Display, d.Verdict
		if d.Display == "~" && d.Pct != nil {
			delta = fmt.Sprintf("~ (%+.2f%%)", *d.Pct)
		}
		if d.Interval != nil {
			interval = fmt.Sprintf("[%+.2f%%, %+.2f%%]", d.Interval[0], d.Interval[1])
		}
		p = d.decidingP()
	}
	return delta, interval, p, verdict
}

// decidingP is the p as reports print it: only where it decided a change.
func (d Delta) decidingP() string {
	if d.P == nil || d.Verdict != Improved && d.Verdict != Regressed {
		return ""
	}
	return fmt.Sprintf("%.3g", *d.P)
}

// How says how a delta was decided, in words.
func (d Delta) How() string {
	unit := "run(s) per arm, unpaired"
	if d.Paired {
		unit = "pair(s)"
	}
	return fmt.Sprintf("%s over %d %s; smallest effect %.2f%% (%s); %s", d.Method, d.N, unit, d.Effect, d.EffectOf, d.Why)
}

// DesignLine describes the design and a sequential campaign's looks.
func (r *Result) DesignLine() string {
	dsg := r.Design
	s := dsg.Why
	if q := dsg.Sequential; q != nil {
		s += fmt.Sprintf("; sequential %d-%d pairs, each look at level %.4f (overall %.2g)", q.MinPairs, q.MaxPairs, q.LookAlpha, q.Alpha)
		for _, d := range r.Deltas {
			var looks []string
			for _, l := range d.Looks {
				looks = append(looks, fmt.Sprintf("%d: %s", l.Pairs, l.Verdict))
			}
			if len(looks) > 0 {
				s += fmt.Sprintf("; %s looks at pairs %s", d.Arm, strings.Join(looks, ", "))
			}
		}
	}
	if st := r.Stopped; st != nil {
		s += fmt.Sprintf("; %s, so its %d planned run(s) after it were not needed", st, st.NotNeeded)
	}
	if dsg.Warmup > 0 {
		s += fmt.Sprintf("; %d warm-up block(s) left out", dsg.Warmup)
	}
	return s
}

// IntervalHeader labels the interval column with the intervals' level,
// which a sequential design's looks make other than 1-alpha.
func (r *Result) IntervalHeader() string {
	level := ""
	for _, d := range r.Deltas {
		if d.Interval == nil {
			continue
		}
		l := decide.IntervalLevel(d.Alpha)
		if level != "" && l != level {
			return "interval"
		}
		level = l
	}
	if level == "" {
		return "interval"
	}
	return level + " interval"
}

// Headline is the one-line verdict: the overall verdict word once, then
// each treatment's delta with its labelled interval (a treatment's own
// verdict only where it differs from the overall one).
func (r *Result) Headline() string {
	switch r.Verdict {
	case Censored:
		return fmt.Sprintf("censored: %d reason(s); no delta is reported", len(r.Reasons))
	}
	var parts []string
	for _, d := range r.Deltas {
		s := fmt.Sprintf("%s vs %s", d.Arm, r.Baseline)
		if d.Pct != nil {
			s += fmt.Sprintf(" %+.2f%%", *d.Pct)
		}
		var detail []string
		if d.Interval != nil {
			detail = append(detail, fmt.Sprintf("%s interval [%+.2f%%, %+.2f%%]", decide.IntervalLevel(d.Alpha), d.Interval[0], d.Interval[1]))
		}
		if p := d.decidingP(); p != "" {
			detail = append(detail, "p="+p)
		}
		if d.Verdict != r.Verdict {
			detail = append(detail, d.Verdict)
		}
		if len(detail) > 0 {
			s += " (" + strings.Join(detail, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return r.Verdict + ": " + strings.Join(parts, "; ")
}

// Markdown writes a report fit to paste into a pull request.
func (r *Result) Markdown(w io.Writer) error {
	var b strings.Builder
	icon := map[string]string{Censored: "⛔", Improved: "✅", Regressed: "❌", Inconclusive: "➖", NoChange: "🟰", Descriptive: "ℹ️"}[r.Verdict]
	fmt.Fprintf(&b, "## abbench: %s %s\n\n", icon, r.Verdict)
	fmt.Fprintf(&b, "Scenario **%s**, metric `%s` (%s is better), baseline **%s**.\n\n", r.Scenario, r.Metric, map[bool]string{true: "higher", false: "lower"}[r.HigherIsBetter], r.Baseline)
	if r.Verdict == Censored {
		b.WriteString("**Censored**: the evidence does not allow a comparison. The numbers below are raw and **not comparable**.\n\n")
		b.WriteString("Root causes first; what only follows from one is listed under it.\n\n")
		b.WriteString("| code | arm | detail |\n| --- | --- | --- |\n")
		for _, rs := range r.Reasons {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", rs.Code, rs.Arm, mdEscape(rs.Detail))
			for _, c := range rs.Consequences {
				fmt.Fprintf(&b, "| ↳ `%s` | %s | consequence: %s |\n", c.Code, c.Arm, mdEscape(c.Detail))
			}
		}
		b.WriteString("\n")
	}
	keys, differing := r.armEnvDiff()
	b.WriteString("### What changed between the arms\n\n| key |")
	for _, a := range r.Arms {
		fmt.Fprintf(&b, " %s |", a.Name)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(r.Arms)) + "\n")
	for _, k := range keys {
		mark := ""
		if !differing[k] {
			mark = " (same)"
		}
		fmt.Fprintf(&b, "| `%s`%s |", k, mark)
		for _, a := range r.Arms {
			fmt.Fprintf(&b, " `%s` |", mdEscape(a.Env[k]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n### Held constant\n\n- matched digest (everything but the arm values): `%s` (in full in the JSON report)\n", short(r.MatchedDigest))
	if r.Workload != nil {
		fmt.Fprintf(&b, "- workload (prompt content, pinned algorithm): `%s:%d:%s`\n", r.Workload.Algorithm, r.Workload.Count, short(r.Workload.Hex))
	}
	if r.PlotURL != "" {
		fmt.Fprintf(&b, "\n[Plot of every run's %s per arm](%s)\n", r.Metric, r.PlotURL)
	}
	b.WriteString("\n### Results\n\n| arm | n | median | mean | CV | delta | " + r.IntervalHeader() + " | p | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, a := range r.Arms {
		delta, interval, p, verdict := r.DeltaCells(a.Name)
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f%% | %s | %s | %s | %s |\n", a.Name, a.N, fmtValue(a.Median), fmtValue(a.Mean), 100*a.CV, delta, interval, p, verdict)
	}
	b.WriteString("\n### Acceptance criteria\n")
	for _, run := range r.Runs {
		passed := 0
		for _, c := range run.Criteria {
			if c.OK {
				passed++
			}
		}
		fmt.Fprintf(&b, "\n<details><summary>run %s (arm %s): %d of %d criteria met</summary>\n\n| criterion | | detail |\n| --- | --- | --- |\n",
			run.Token, run.Arm, passed, len(run.Criteria))
		for _, c := range run.Criteria {
			mark := "✓"
			if !c.OK {
				mark = "✗"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", c.ID, mark, mdEscape(c.Detail))
		}
		b.WriteString("\n</details>\n")
	}
	if len(r.Warnings) > 0 || len(r.Deltas) > 0 {
		b.WriteString("\n### Caveats\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdEscape(w))
		}
		if r.Design.Why != "" {
			fmt.Fprintf(&b, "- design: %s\n", mdEscape(r.DesignLine()))
		}
		for _, d := range r.Deltas {
			fmt.Fprintf(&b, "- %s: %s\n", d.Arm, mdEscape(d.How()))
		}
	}
	if r.Stored != nil && r.Verdict != Censored {
		var sb strings.Builder
		r.writeStored(textout.New(&sb))
		b.WriteString("\n### Against the stored baseline\n\n```\n" + strings.TrimSpace(sb.String()) + "\n```\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// SVG plots each run's value per arm, the arms' medians, and the deltas
// with their intervals.
func (r *Result) SVG(w io.Writer) error {
	const width, height, top, bottom, left = 640, 360, 50, 300, 80
	var lo, hi = math.Inf(1), math.Inf(-1)
	var baseMedian float64
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
	lo, hi = lo-pad, hi+pad
	y := func(v float64) float64 { return bottom - (v-lo)/(hi-lo)*(bottom-top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="14">%s</text>`+"\n", left, html.EscapeString(fmt.Sprintf("%s: %s (%s, baseline %s)", r.Scenario, r.Verdict, r.Metric, r.Baseline)))
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, top, left, bottom)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, fmtValue(v))
	}
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)">%s</text>`+"\n", (top+bottom)/2, (top+bottom)/2, html.EscapeString(r.Metric))
	colw := float64(width-left-40) / float64(max(len(r.Arms), 1))
	for i, a := range r.Arms {
		cx := float64(left) + colw*(float64(i)+0.5)
		color := "#1f77b4"
		if a.Name == r.Baseline {
			color = "#7f7f7f"
		}
		for j, v := range a.Values {
			dx := (float64(j) - float64(len(a.Values)-1)/2) * 6
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.7"/>`+"\n", cx+dx, y(v), color)
		}
		if a.N > 0 {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", cx-colw/4, y(a.Median), cx+colw/4, y(a.Median), color)
		}
		label := a.Name
		if a.Name == r.Baseline {
			label += " (baseline)"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s n=%d</text>`+"\n", cx, bottom+20, html.EscapeString(label), a.N)
		for _, d := range r.Deltas {
			if d.Arm != a.Name || d.Pct == nil {
				continue
			}
			text := d.Display
			if d.Interval != nil {
				text += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", d.Interval[0], d.Interval[1])
				y0, y1 := y(baseMedian*(1+d.Interval[0]/100)), y(baseMedian*(1+d.Interval[1]/100))
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#d62728" stroke-width="3"/>`+"\n", cx+colw/3, y0, cx+colw/3, y1)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", cx, bottom+38, html.EscapeString(text+" "+d.Verdict))
		}
	}
	if r.Verdict == Censored {
		fmt.Fprintf(&b, `<text x="%d" y="44" fill="#d62728">censored: raw values, not comparable</text>`+"\n", left)
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteText prints the comparison for a person: a censored one with every
// reason and no delta, otherwise per-arm statistics, warnings and the verdict.
func (r *Result) WriteText(w io.Writer) error {
	out := textout.New(w)
	out.Printf("comparison of %s on %s, baseline %s\n", r.Scenario, r.Metric, r.Baseline)
	if r.Verdict == Censored {
		out.Printf("\nCENSORED: no delta is reported. Every reason, root causes first:\n")
		for _, rs := range r.Reasons {
			for _, line := range rs.Lines() {
				out.Printf("  %s\n", line)
			}
		}
		out.Println("\nraw values (not comparable):")
	}
	out.Println()
	var rows [][]string
	for _, a := range r.Arms {
		delta, interval, p, verdict := r.DeltaCells(a.Name)
		rows = append(rows, []string{a.Name, fmt.Sprint(a.N), fmt.Sprintf("%.1f", a.Median), fmt.Sprintf("%.1f", a.Mean), fmt.Sprintf("%.2f%%", 100*a.CV), delta, interval, p, verdict})
	}
	if err := texttable.Write(out, []string{"arm", "n", "median", "mean", "cv", "delta", r.IntervalHeader(), "p", "verdict"}, rows); err != nil {
		return err
	}
	if r.Verdict != Censored {
		out.Printf("\ndesign: %s\n", r.DesignLine())
		for _, d := range r.Deltas {
			out.Printf("%s: %s\n", d.Arm, d.How())
		}
	}
	r.writeStored(out)
	if r.Workload != nil && r.Verdict != Censored {
		out.Printf("\nworkload: %s\nmatched:  %s\n", r.Workload, r.MatchedDigest)
	}
	for _, b := range r.Builds {
		src := ""
		if b.Source != "" {
			src = ", from " + b.Source
		}
		out.Printf("build of %s: %s (sha256 %.12s%s)\n", b.Arm, b.Binary, b.SHA256, src)
	}
	for _, warn := range r.Warnings {
		out.Printf("warning: %s\n", warn)
	}
	out.Printf("\nverdict: %s\n", r.Headline())
	return out.Err()
}

// WriteSVGFile writes the plot of every run's value per arm to path.
func (r *Result) WriteSVGFile(path string) error {
	return writeTo(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, r.SVG)
}

// AppendMarkdown appends the Markdown report to path (a CI step summary).
func (r *Result) AppendMarkdown(path string) error {
	return writeTo(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, r.Markdown)
}

// writeTo opens path with flag, lets write fill it, and reports the first error.
func writeTo(path string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Formats are the report formats Render takes.
var Formats = []string{"table", "json", "markdown", "junit", "csv"}

// Render writes the report in format (one of Formats); failOn marks the
// JUnit comparison case failed as --fail-on would.
func (r *Result) Render(w io.Writer, format, failOn string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // a reason's "<" stays "<": this is no HTML
		return enc.Encode(r)
	case "markdown":
		return r.Markdown(w)
	case "junit":
		return r.JUnit(w, failOn)
	case "csv":
		return r.CSV(w)
	case "table":
		return r.WriteText(w)
	}
	return fmt.Errorf("unknown report format %q", format)
}
