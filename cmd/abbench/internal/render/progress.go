package render

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/abbench/abbench/campaign"
	"github.com/abbench/abbench/internal/textout"
)

// Progress renders a campaign's events on w: a live line on a terminal,
// otherwise one line per change of state. Its Event method is a
// campaign.Config.Progress; call Done when the campaign ends. It is for a person
// watching: a line that cannot be written changes nothing recorded, so
// it stops writing (textout) and says nothing of it.
type Progress struct {
	w   *textout.Writer
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
	return &Progress{w: textout.New(w), tty: tty}
}

// Event renders one event.
func (p *Progress) Event(e campaign.Event) {
	if e.Tick && !p.tty {
		return
	}
	if l := e.Look; l != nil {
		line := fmt.Sprintf("abbench: look after %d pair(s): %s", l.Pairs, l.Verdict)
		if l.Cell != "" {
			line = fmt.Sprintf("abbench: look at cell %s after %d pair(s): %s", l.Cell, l.Pairs, l.Verdict)
		}
		if l.Delta != nil {
			line += fmt.Sprintf(" (%+.2f%%)", *l.Delta)
		}
		if p.tty {
			p.w.Printf("\r\033[K")
		}
		p.w.Println(line)
		switch {
		case e.Decided != "" && l.Cell != "":
			p.w.Printf("abbench: cell %s stopped at its %s (the other cells go on)\n", l.Cell, e.Decided)
		case e.Decided != "":
			p.w.Printf("abbench: sequential design stopped at its %s\n", e.Decided)
		}
		return
	}
	arm := e.Arm
	if e.Cell != "" {
		arm += " " + e.Cell // as the summary's arm column says it
	}
	line := fmt.Sprintf("abbench: run %d/%d %-10s %-10s %6.1fs", e.Index, e.Total, arm, e.State, e.Elapsed.Seconds())
	if e.Ended {
		p.ran += e.Elapsed
		p.ended++
		line += "  " + Headline(e.Evidence)
		if left := e.Left; left > 0 {
			// A sequential campaign may stop before its last planned run:
			// the estimate is of the most that is left.
			eta := p.ran / time.Duration(p.ended) * time.Duration(left)
			line += fmt.Sprintf("  %d run(s) left, at most ~%s", left, eta.Round(time.Second))
		}
	}
	if p.tty {
		p.w.Printf("\r\033[K%s", line)
		return
	}
	p.w.Println(line)
}

// Done ends a live line.
func (p *Progress) Done() {
	if p.tty {
		p.w.Println()
	}
}
