package compare

import (
	"io"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/textout"
)

// GitHubOutput writes the comparison as a GitHub Actions step's outputs,
// NAME=VALUE lines to append to $GITHUB_OUTPUT: verdict, censored (true or
// false), reason (the first root cause's code, when censored), headline;
// for every treatment delta_pct_ARM, interval_low_pct_ARM,
// interval_high_pct_ARM and verdict_ARM (ARM with every byte but letters,
// digits, - and _ made _), and the same names but verdict without _ARM
// when there is one treatment. Each name is written once (the runner
// keeps a name's last value). A value is always one line: the single-line form of the
// file needs no delimiter a value could forge.
func (r Report) GitHubOutput(w io.Writer) error {
	out := textout.New(w)
	put := func(name, value string) { out.Printf("%s=%s\n", name, oneLine(value)) }
	put("verdict", r.Verdict)
	put("censored", strconv.FormatBool(r.Verdict == Censored))
	if r.Verdict == Censored && len(r.Reasons) > 0 {
		put("reason", string(r.Reasons[0].Code))
	}
	put("headline", r.Headline())
	ds := r.exportedDeltas()
	for _, d := range ds {
		suffixes := []string{"_" + outputName(d.Arm)}
		if len(ds) == 1 {
			suffixes = append(suffixes, "")
		}
		for _, sfx := range suffixes {
			put("delta_pct"+sfx, strconv.FormatFloat(d.pct, 'f', -1, 64))
			put("interval_low_pct"+sfx, strconv.FormatFloat(d.lo, 'f', -1, 64))
			put("interval_high_pct"+sfx, strconv.FormatFloat(d.hi, 'f', -1, 64))
			if sfx != "" { // unsuffixed, verdict is the comparison's, above
				put("verdict"+sfx, d.Verdict)
			}
		}
	}
	return out.Err()
}

// outputName is s with every byte but ASCII letters, digits, - and _
// replaced by _: a name GitHub's expressions can read.
func outputName(s string) string {
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, s)
}
