package campaign

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Progress renders a campaign's events on w: a live line on a terminal,
// otherwise one line per change of state. Its Event method is a
// Config.Progress; call Done when the campaign ends.
type Progress struct {
	w   io.Writer
	tty bool
	// ran sums the durations of the runs that ended, for the estimate of
	// what is left.
	ran   time.Duration
	ended int
}

// NewProgress renders events on w.
func NewProgress(w io.Writer) *Progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &Progress{w: w, tty: tty}
}

// Event renders one event.
func (p *Progress) Event(e Event) {
	if e.Tick && !p.tty {
		return
	}
	if l := e.Look; l != nil {
		line := fmt.Sprintf("abbench: look after %d pair(s): %s", l.Pairs, l.Verdict)
		if l.Delta != nil {
			line += fmt.Sprintf(" (%+.2f%%)", *l.Delta)
		}
		if p.tty {
			fmt.Fprint(p.w, "\r\033[K")
		}
		fmt.Fprintln(p.w, line)
		if e.Decided != "" {
			fmt.Fprintf(p.w, "abbench: sequential design stopped at its %s\n", e.Decided)
		}
		return
	}
	line := fmt.Sprintf("abbench: run %d/%d %-10s %-10s %6.1fs", e.Index, e.Total, e.Arm, e.State, e.Elapsed.Seconds())
	if e.Ended {
		p.ran += e.Elapsed
		p.ended++
		line += "  " + e.Value
		if left := e.Total - e.Index; left > 0 {
			// A sequential campaign may stop before its last planned run:
			// the estimate is of the most that is left.
			eta := p.ran / time.Duration(p.ended) * time.Duration(left)
			line += fmt.Sprintf("  %d run(s) left, at most ~%s", left, eta.Round(time.Second))
		}
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

// Done ends a live line.
func (p *Progress) Done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
