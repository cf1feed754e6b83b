package compare

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/textout"
)

// verdictIcon marks a report's verdict at a glance.
var verdictIcon = map[string]string{Censored: "⛔", Improved: "✅", Regressed: "❌", Inconclusive: "➖", NoChange: "🟰", Descriptive: "ℹ️", SweepAccepted: "✅"}

// Markdown writes a report fit to paste into a pull request.
func (r Report) Markdown(w io.Writer) error { return r.markdownAfter(w, nil) }

// markdownAfter writes the Markdown report; after, when set, is the
// report of the metric before it in a family of metrics: a section of
// r's that is the same as after's (the arms' keys, what was held
// constant, the runs' acceptance criteria: the same runs) is said to be
// as above, not repeated (a family of two metrics of six runs was 270
// lines, each metric's acceptance criteria a hundred).
func (r Report) markdownAfter(w io.Writer, after *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## abbench: %s %s\n\n", verdictIcon[r.Verdict], r.Verdict)
	// The answer under the heading, as the text report's last line says
	// it: a reviewer reading a pull request saw "improved" and had to
	// find the change, its interval and p in the table below.
	if r.Verdict != Censored { // a censored one's own paragraph says it below
		fmt.Fprintf(&b, "**%s**\n\n", strings.NewReplacer("*", `\*`, "_", `\_`).Replace(mdEscape(r.Headline()))) // an arm's _ or * would end the bold
	}
	fmt.Fprintf(&b, "Scenario **%s**, metric `%s` (%s is better), baseline **%s**.\n\n", r.Scenario, r.Metric, map[bool]string{true: "higher", false: "lower"}[r.HigherIsBetter], r.Baseline)
	if r.Verdict == Censored {
		r.mdCensored(&b)
	}
	for _, sec := range []func(Report, *strings.Builder){Report.mdArmEnv, Report.mdHeld} {
		b.WriteString(r.mdSection(sec, after))
	}
	b.WriteString("\n### Results\n\n| arm | n | median | mean | CV | delta | " + r.IntervalHeader() + " | p | verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, a := range r.Arms {
		delta, interval, p, verdict := r.DeltaCells(a.Name)
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.2f%% | %s | %s | %s | %s |\n", a.Name, a.N, numfmt.Value(a.Median), numfmt.Value(a.Mean), 100*a.CV, delta, interval, p, verdict)
	}
	b.WriteString(r.mdSection(Report.mdCriteria, after))
	r.mdCaveats(&b)
	if r.Stored != nil && r.Verdict != Censored {
		var sb strings.Builder
		r.writeStored(textout.New(&sb))
		b.WriteString("\n### Against the stored baseline\n\n```\n" + strings.TrimSpace(sb.String()) + "\n```\n")
	}
	return writeText(w, b.String())
}

// mdSection is section sec of r, or, where it is after's word for word,
// its heading and a line that points to it.
func (r Report) mdSection(sec func(Report, *strings.Builder), after *Report) string {
	var mine strings.Builder
	sec(r, &mine)
	if after == nil {
		return mine.String()
	}
	var theirs strings.Builder
	sec(*after, &theirs)
	if mine.String() != theirs.String() {
		return mine.String()
	}
	heading, _, _ := strings.Cut(strings.TrimLeft(mine.String(), "\n"), "\n")
	return fmt.Sprintf("\n%s\n\nAs for `%s` above.\n", heading, after.Metric)
}

// mdHeld lists what the arms held constant.
func (r Report) mdHeld(b *strings.Builder) {
	fmt.Fprintf(b, "\n### Held constant\n\n- matched digest (everything but the arm values): `%s` (in full in the JSON report)\n", short(r.MatchedDigest))
	if r.Workload != nil {
		fmt.Fprintf(b, "- workload (prompt content, pinned algorithm): `%s:%d:%s`\n", r.Workload.Algorithm, r.Workload.Count, short(r.Workload.Hex))
	}
	if r.Machine != "" {
		fmt.Fprintf(b, "- machine: %s\n", mdEscape(r.Machine))
	}
	for _, a := range r.GPUs {
		fmt.Fprintf(b, "- gpus: %s\n", mdEscape(a.Line()))
	}
	if r.PlotURL != "" {
		fmt.Fprintf(b, "\n[Plot of every run's %s per arm](%s)\n", r.Metric, r.PlotURL)
	}
}

// writeText writes a report for a person to w, its control bytes escaped
// (textout.Escape): what ranks logged is quoted in it.
func writeText(w io.Writer, text string) error {
	out := textout.New(w)
	_, _ = io.WriteString(out, text) // out keeps the first error
	return out.Err()
}

// mdCensored says the comparison is censored and lists every reason,
// each with its consequences under it.
func (r Report) mdCensored(b *strings.Builder) {
	b.WriteString("**Censored**: the evidence does not allow a comparison. The numbers below are raw and **not comparable**.\n\n")
	b.WriteString("Root causes first; what only follows from one is listed under it.\n\n")
	b.WriteString("| code | arm | detail |\n| --- | --- | --- |\n")
	for _, rs := range r.Reasons {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", rs.Code, rs.Arm, mdEscape(rs.Said()))
		for _, c := range rs.Consequences {
			fmt.Fprintf(b, "| ↳ `%s` | %s | consequence: %s |\n", c.Code, c.Arm, mdEscape(c.Said()))
		}
	}
	b.WriteString("\n")
}

// mdArmEnv is the table of every arm key's value per arm, the keys that
// are the same in every arm marked so.
func (r Report) mdArmEnv(b *strings.Builder) {
	keys, differing := r.armEnvDiff()
	b.WriteString("### What changed between the arms\n\n| key |")
	for _, a := range r.Arms {
		fmt.Fprintf(b, " %s |", a.Name)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(r.Arms)) + "\n")
	for _, k := range keys {
		mark := ""
		if !differing[k] {
			mark = " (same)"
		}
		fmt.Fprintf(b, "| `%s`%s |", k, mark)
		for _, a := range r.Arms {
			fmt.Fprintf(b, " `%s` |", mdEscape(a.Env[k]))
		}
		b.WriteString("\n")
	}
}

// mdCriteria gives each run's acceptance criteria: a run that missed one
// in the open, where a reviewer looks, and the runs that met every one
// folded into a single details block (a block a run made a 28-run
// campaign's pull-request comment a page of closed blocks).
func (r Report) mdCriteria(b *strings.Builder) {
	b.WriteString("\n### Acceptance criteria\n")
	var met []RunSummary
	for _, run := range r.Runs {
		if passed := criteriaMet(run); passed < len(run.Criteria) {
			fmt.Fprintf(b, "\n**Run %s (arm %s): %d of %d criteria met.**\n", run.Token, run.Arm, passed, len(run.Criteria))
			mdCriteriaTable(b, run)
			continue
		}
		met = append(met, run)
	}
	if len(met) == 0 {
		return
	}
	what := fmt.Sprintf("%d run(s) met every criterion", len(met))
	if len(met) == len(r.Runs) {
		what = fmt.Sprintf("every run (%d) met every criterion", len(met))
	}
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n", what)
	for _, run := range met {
		fmt.Fprintf(b, "\nRun %s (arm %s): %d of %d criteria met.\n", run.Token, run.Arm, len(run.Criteria), len(run.Criteria))
		mdCriteriaTable(b, run)
	}
	b.WriteString("\n</details>\n")
}

// criteriaMet counts the criteria run met.
func criteriaMet(run RunSummary) int {
	n := 0
	for _, c := range run.Criteria {
		if c.OK {
			n++
		}
	}
	return n
}

// mdCriteriaTable is a run's criteria, a row each.
func mdCriteriaTable(b *strings.Builder, run RunSummary) {
	b.WriteString("\n| criterion | | detail |\n| --- | --- | --- |\n")
	for _, c := range run.Criteria {
		mark := "✓"
		if !c.OK {
			mark = "✗"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", c.ID, mark, mdEscape(c.Detail))
	}
}

// mdCaveats lists the warnings, the design and how each delta was decided.
func (r Report) mdCaveats(b *strings.Builder) {
	if len(r.Warnings) == 0 && len(r.Deltas) == 0 {
		return
	}
	b.WriteString("\n### Caveats\n\n")
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "- %s\n", mdEscape(w))
	}
	if r.Design.Why != "" {
		fmt.Fprintf(b, "- design: %s\n", mdEscape(r.DesignLine()))
	}
	for _, d := range r.Deltas {
		fmt.Fprintf(b, "- %s: %s\n", d.Arm, mdEscape(d.How()))
	}
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

func (r Report) armEnvDiff() (keys []string, differing map[string]bool) {
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
