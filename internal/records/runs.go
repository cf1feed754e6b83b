package records

import (
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// consoleRuns splits a console log that several runs appended to into
// its runs: each starts at a line the banner matches (the version line a
// tool prints first) and is one if it holds marker; text before the
// first banner, and a banner's output without marker (a prepare step),
// is no run's. A log without a banner is one run.
func consoleRuns(text string, banner *lazyregexp.Regexp, marker string) []string {
	starts := banner.FindAllStringIndex(text, -1)
	if len(starts) == 0 {
		return []string{text}
	}
	var runs []string
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		if run := text[s[0]:end]; strings.Contains(run, marker) {
			runs = append(runs, run)
		}
	}
	return runs
}

// chooseRun picks this run of a log of several: a run is named by its
// 1-based place among the log's runs ("1", "2", ...), as
// throughput.result names it; see Record.choose.
func (r *Record) chooseRun(runs []string, want string) (string, bool) {
	names := make([]string, len(runs))
	for i := range runs {
		names[i] = strconv.Itoa(i + 1)
	}
	i, ok := r.choose(names, want)
	if !ok {
		return "", false
	}
	return runs[i], true
}
