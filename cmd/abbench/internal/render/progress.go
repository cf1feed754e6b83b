package render

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
)

// Progress renders a campaign's events on w: on a terminal a live line,
// cut to the terminal's width so that it never wraps (a wrapped line is
// not erased, and leaves a line of debris per update); otherwise one line
// per run, as it ends, fitted to the width (termwidth.Columns), or with
// Verbose every phase of every run as a line of its own. Its Event
// method is a campaign.Config.Progress; call Done when the campaign ends.
// It is for a person watching: a line that cannot be written changes
// nothing recorded, so it stops writing (textout) and says nothing of it.
type Progress struct {
	w    *textout.Writer
	tty  bool
	cols int
	// Verbose writes every phase of every run off a terminal too (run -v),
	// for a log that shows where a run was when it stopped.
	Verbose bool
	// ran sums the durations of the runs that ended, for the estimate of
	// what is left.
	ran   time.Duration
	ended int
}

// NewProgress renders events on w.
func NewProgress(w io.Writer) *Progress {
	return newProgress(w, termwidth.IsTerminal(w), termwidth.Columns(w))
}

func newProgress(w io.Writer, tty bool, cols int) *Progress {
	return &Progress{w: textout.New(w), tty: tty, cols: cols}
}

// println writes a line that stays, wrapped to the width.
func (p *Progress) println(line string) {
	if p.tty {
		p.w.Printf("\r\033[K")
	}
	for _, l := range termwidth.Wrap(line, p.cols, "  ") {
		p.w.Println(l)
	}
}

// Event renders one event.
func (p *Progress) Event(e campaign.Event) {
	if !p.tty && !p.Verbose && !e.Ended && e.Look == nil {
		return // off a terminal, a run is a line as it ends
	}
	if l := e.Look; l != nil {
		line := fmt.Sprintf("abbench: look after %d pair(s): %s", l.Pairs, l.Verdict)
		if l.Cell != "" {
			line = fmt.Sprintf("abbench: look at cell %s after %d pair(s): %s", l.Cell, l.Pairs, l.Verdict)
		}
		if l.Delta != nil {
			line += fmt.Sprintf(" (%+.2f%%)", *l.Delta)
		}
		p.println(line)
		switch {
		case e.Decided != "" && l.Cell != "" && e.CellsLeft > 0:
			p.println(fmt.Sprintf("abbench: cell %s stopped at its %s; %d other cell(s) go on", l.Cell, e.Decided, e.CellsLeft))
		case e.Decided != "" && l.Cell != "":
			p.println(fmt.Sprintf("abbench: cell %s stopped at its %s; it was the last cell", l.Cell, e.Decided))
		case e.Decided != "":
			p.println(fmt.Sprintf("abbench: sequential design stopped at its %s", e.Decided))
		}
		return
	}
	arm := e.Arm
	if e.Cell != "" {
		arm += " " + e.Cell // as the summary's arm column says it
	}
	// The run's number as wide as the total's, and the figure right-aligned
	// (as wide as a figure in the thousands): run 9's line and run 10's,
	// a failed run's "-" and a figure, keep their columns.
	state := e.State
	if e.Ended && e.Evidence != nil && !e.Evidence.Accepted {
		// The run ended and was judged: its evidence is censored (the arm
		// exits 3 for that, which the launcher calls failed). "failed"
		// read as if the run never got to measure; the report says why.
		state = "censored"
	}
	line := fmt.Sprintf("abbench: run %*d/%d %-8s %-9s %5.1fs", len(strconv.Itoa(e.Total)), e.Index, e.Total, arm, state, e.Elapsed.Seconds())
	if e.Ended {
		p.ran += e.Elapsed
		p.ended++
		value := "-"
		if state == launcher.Succeeded {
			// a failed run's record may hold a figure, but no comparison
			// counts it: beside "failed" it read as a result
			value = Headline(e.Evidence)
		}
		line += fmt.Sprintf("  %7s", value)
		if left := e.Left; left > 0 {
			// A sequential campaign may stop before its last planned run:
			// the estimate is of the most that is left.
			eta := p.ran / time.Duration(p.ended) * time.Duration(left)
			line += p.leftWords(line, left, eta.Round(time.Second))
		}
	}
	switch {
	case p.tty && e.Ended:
		p.println(line)
	case p.tty:
		// One column short of the width: a line that reaches the last
		// column wraps on some terminals.
		p.w.Printf("\r\033[K%s", cut(line, p.cols-1))
	case e.Ended || p.Verbose:
		p.println(line)
	}
}

// leftWords says what is left after line in the longest words that keep
// it on one line of the width: a sweep's cell lengthens the arm column,
// and a line wrapped for the estimate's words alone read as two runs.
// Where even the count does not fit, the line wraps with it.
func (p *Progress) leftWords(line string, left int, eta time.Duration) string {
	words := []string{
		fmt.Sprintf("  %d left, at most ~%s", left, eta),
		fmt.Sprintf("  %d left, ~%s", left, eta),
		fmt.Sprintf("  %d left", left),
	}
	for _, w := range words {
		if p.cols <= 0 || termwidth.Display(line+w) <= p.cols {
			return w
		}
	}
	return words[len(words)-1]
}

// cut is s cut to at most cols columns.
func cut(s string, cols int) string {
	if termwidth.Display(s) <= cols {
		return s
	}
	return termwidth.Wrap(s, cols, "")[0]
}

// Done ends a live line.
func (p *Progress) Done() {
	if p.tty {
		p.w.Println()
	}
}
