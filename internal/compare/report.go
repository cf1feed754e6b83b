package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// DeltaCells are an arm's delta, interval, p value and verdict as a
// report prints them ("" where there is none).
func (r Report) DeltaCells(arm string) (delta, interval, p, verdict string) {
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
		p = d.shownP()
	}
	return delta, interval, p, verdict
}

// shownP is the p the table prints, the one the verdict line says: the
// interval's own where it is the design's (stagewise, repeated) or
// Holm-adjusted, whatever the verdict, beside which the line names the
// level; otherwise only where it decided a change. An inconclusive
// look's stagewise p left blank in the table, said in the line below
// it, read as two comparisons.
func (d Delta) shownP() string {
	if d.P != nil && (d.HolmAdjusted || d.Stagewise || d.Repeated) {
		return numfmt.P(*d.P)
	}
	return d.decidingP()
}

// decidingP is the p as reports print it: only where it decided a change.
func (d Delta) decidingP() string {
	if d.P == nil || d.Verdict != Improved && d.Verdict != Regressed {
		return ""
	}
	return numfmt.P(*d.P)
}

// How says how a delta was decided, in words.
func (d Delta) How() string {
	over := fmt.Sprintf("%d run(s) per arm, unpaired", d.N)
	switch {
	case d.Paired:
		over = fmt.Sprintf("%d pair(s)", d.N)
	case d.NowThen != nil && d.NowThen[0] != d.NowThen[1]:
		// a stored baseline's arm of another count than now's: the
		// smaller alone (N) read as the count of both
		over = fmt.Sprintf("%d run(s) now and %d then, unpaired", d.NowThen[0], d.NowThen[1])
	}
	why := d.Why
	if d.Stagewise || d.Repeated {
		// The table's p is the design's (stagewise, repeated), this one
		// the look's own against the look's level: a newcomer met two p
		// and no word of which was which.
		why = "at its look, " + why
	}
	if d.Stagewise {
		// and of the other p, what it is: three p and two levels of
		// one cell read as three answers.
		why += fmt.Sprintf("; the p and interval reported are the stagewise ones at this stop, held to %s", numfmt.Significant(d.Alpha, 3))
	}
	return fmt.Sprintf("%s over %s; smallest effect %.2f%% (%s); %s", d.Method, over, d.Effect, d.EffectOf, why)
}

// DesignLine describes the design and a sequential campaign's looks.
func (r Report) DesignLine() string {
	dsg := r.Design
	s := dsg.Why
	if q := dsg.Sequential; q != nil {
		s += "; " + sequentialOf(q).FamilyOf(len(r.Deltas), dsg.Metrics, dsg.Cells).Describe()
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
	if dsg.SideBySide > 0 {
		s += fmt.Sprintf("; the runs of %d of %d block(s) ran side by side, each in its own allocation (each started before the other ended, as the runs' own times say): what a pair shares while both run is in both", dsg.SideBySide, dsg.Timed)
	}
	return s
}

// IntervalHeader labels the interval column with the intervals' level,
// which a sequential design's looks make other than 1-alpha.
func (r Report) IntervalHeader() string {
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

// IntervalSentence says in plain words what the intervals of a
// sequential design's verdicts mean and what they do not, whatever the
// verdict ("" for a fixed design's, whose level is the usual one).
func (r Report) IntervalSentence() string {
	var stagewise, repeated bool
	for _, d := range r.Deltas {
		stagewise, repeated = stagewise || d.Stagewise, repeated || d.Repeated
	}
	alpha := 0.0
	if q := r.Design.Sequential; q != nil {
		alpha = sequentialOf(q).FamilyOf(len(r.Deltas), r.Design.Metrics, r.Design.Cells).Alpha
	}
	level := decide.IntervalLevel(alpha)
	switch {
	case stagewise && repeated:
		return fmt.Sprintf("intervals: of campaigns run with this design, %s hold each true change in the interval printed for it (stagewise where its test stopped the campaign; repeated where another test did, labelled with its look's higher level, the width that keeps %s at whichever look a campaign stops), whatever the verdict; none is a %s chance that this campaign's change lies in it, nor a promise for the campaigns that claim a change taken alone", level, level, level)
	case stagewise:
		return fmt.Sprintf("interval: of campaigns run with this design, %s hold the true change in the interval printed at their stop, whichever look they stop at and whatever the verdict; it is not a %s chance that this campaign's change lies in it, nor a promise for the campaigns that claim a change taken alone", level, level)
	case repeated:
		return fmt.Sprintf("interval: the campaign stopped before this test's own stop; its interval is labelled with its look's level, higher than %s: that width is what makes it hold the true change in at least %s of campaigns of this design whatever made them stop and whatever the verdict; it is not a %s chance that this campaign's change lies in it", level, level, level)
	}
	return ""
}

// Headline is the one-line verdict: the overall verdict word once, then
// each treatment's delta with its labelled interval (a treatment's own
// verdict only where it differs from the overall one).
func (r Report) Headline() string {
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
		kind := ""
		switch {
		case d.Stagewise:
			kind = "stagewise "
		case d.Repeated:
			kind = "repeated "
		}
		if d.Interval != nil {
			detail = append(detail, fmt.Sprintf("%s%s interval [%+.2f%%, %+.2f%%]", kind, decide.IntervalLevel(d.Alpha), d.Interval[0], d.Interval[1]))
		}
		switch {
		case d.HolmAdjusted && d.P != nil:
			// the adjusted p beside the level it was held to, which may be
			// the look's where the interval is the design's
			detail = append(detail, fmt.Sprintf("%s Holm-adjusted, at level %s", numfmt.PEquals(*d.P), numfmt.Significant(d.PLevel, 3)))
		case (d.Stagewise || d.Repeated) && d.P != nil:
			// the p beside the level it was held to, whatever the verdict:
			// the design's (stagewise) or the look's (repeated), the
			// interval's own, so the two cannot disagree
			detail = append(detail, fmt.Sprintf("%s at level %s", numfmt.PEquals(*d.P), numfmt.Significant(d.Alpha, 3)))
		case d.decidingP() != "":
			detail = append(detail, numfmt.PEquals(*d.P))
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

// WriteText prints the comparison for a person: a censored one with every
// reason and no delta, otherwise per-arm statistics, warnings and the verdict.
func (r Report) WriteText(w io.Writer) error {
	out := textout.New(w)
	out.Printf("comparison of %s on %s, baseline %s\n", r.Scenario, MetricLabel(r.Metric), r.Baseline)
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
		// No mean: the table fits 80 columns with it left out (the JSON,
		// Markdown and CSV reports hold it).
		rows = append(rows, []string{a.Name, fmt.Sprint(a.N), numfmt.Value(a.Median), fmt.Sprintf("%.2f%%", 100*a.CV), delta, interval, p, verdict})
	}
	if err := texttable.Write(out, []string{"arm", "n", "median", "cv", "delta", r.IntervalHeader(), "p", "verdict"}, rows); err != nil {
		return err
	}
	if r.Verdict != Censored {
		if s := r.IntervalSentence(); s != "" {
			out.Printf("\n%s\n", s)
		}
		out.Printf("\ndesign: %s\n", r.DesignLine())
		for _, d := range r.Deltas {
			out.Printf("%s: %s\n", d.Arm, d.How())
			if d.Meaning != "" {
				out.Printf("%s: %s\n", d.Arm, d.Meaning)
			}
		}
	}
	r.writeStored(out)
	if r.Workload != nil && r.Verdict != Censored {
		out.Printf("\nworkload: %s\n", r.Workload.Fit("workload: ", termwidth.Of(out)))
		if r.Workload.Algorithm.Sorted() {
			// abbench digest FILE gives the ordered digest: say which
			// command gives this one.
			out.Printf("  (the prompts as a multiset: abbench digest --algorithm %s FILE)\n", r.Workload.Algorithm)
		}
		out.Printf("matched:  %s\n", r.MatchedDigest)
	}
	if r.Machine != "" {
		out.Printf("machine:  %s\n", r.Machine)
	}
	for _, a := range r.GPUs {
		out.Printf("gpus:     %s\n", a.Line())
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

// AppendMarkdown appends the Markdown report to path (a CI step summary).
func (r Report) AppendMarkdown(path string) error {
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
var Formats = []string{"table", "json", "markdown", "junit", "csv", "bmf", "github-benchmark", "openmetrics", "github-output"}

// Render writes the report in format (one of Formats); failOn marks the
// JUnit comparison case failed as --fail-on would.
func (r Report) Render(w io.Writer, format, failOn string) error {
	if export, ok := exports[format]; ok {
		return export(r, w)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)    // a reason's "<" stays "<": this is no HTML
		return enc.Encode(r.Result) // the JSON report is the Result itself
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
