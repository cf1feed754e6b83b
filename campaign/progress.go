package campaign

import (
	"fmt"
	"io"
	"os"
)

// Progress renders a campaign's events on w: a live line on a terminal,
// otherwise one line per change of state. Its Event method is a
// Config.Progress; call Done when the campaign ends.
type Progress struct {
	w   io.Writer
	tty bool
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
	line := fmt.Sprintf("abbench: run %d/%d %-10s %-10s %6.1fs", e.Index, e.Total, e.Arm, e.State, e.Elapsed.Seconds())
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
