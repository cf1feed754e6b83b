package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/textout"
)

// OpenMetrics writes the comparison in the OpenMetrics text format
// (GitLab's metrics report reads it): abbench_censored (1 when the
// comparison is censored, 0 when not), and for each treatment its verdict
// (an info metric), its change in percent and its interval's bounds, each
// labelled with scenario, metric, arm and baseline. It ends with "# EOF",
// as the format requires.
func (r Report) OpenMetrics(w io.Writer) error {
	out := textout.New(w)
	scope := labels("scenario", r.Scenario, "metric", r.Metric)
	censored := 0
	if r.Verdict == Censored {
		censored = 1
	}
	out.Printf("# TYPE abbench_censored gauge\n# HELP abbench_censored 1 when the comparison is censored: its evidence missing, invalid or unequal, and no delta reported.\n")
	out.Printf("abbench_censored{%s} %d\n", scope, censored)
	ds := r.exportedDeltas()
	if len(ds) > 0 {
		out.Printf("# TYPE abbench_verdict info\n# HELP abbench_verdict The verdict on a treatment against the baseline.\n")
		for _, d := range ds {
			out.Printf("abbench_verdict_info{%s} 1\n", r.armLabels(d.Arm, "verdict", d.Verdict))
		}
	}
	for _, g := range []struct {
		name, help string
		value      func(exported) float64
	}{
		{"abbench_delta_percent", "The treatment's change against the baseline, in percent.", func(e exported) float64 { return e.pct }},
		{"abbench_delta_low_percent", "The low bound of the change's interval, in percent.", func(e exported) float64 { return e.lo }},
		{"abbench_delta_high_percent", "The high bound of the change's interval, in percent.", func(e exported) float64 { return e.hi }},
	} {
		if len(ds) == 0 {
			break
		}
		out.Printf("# TYPE %s gauge\n# UNIT %s percent\n# HELP %s %s\n", g.name, g.name, g.name, g.help)
		for _, d := range ds {
			out.Printf("%s{%s} %s\n", g.name, r.armLabels(d.Arm), strconv.FormatFloat(g.value(d), 'g', -1, 64))
		}
	}
	out.Printf("# EOF\n")
	return out.Err()
}

// armLabels are a treatment's labels, then extra name-value pairs.
func (r Report) armLabels(arm string, extra ...string) string {
	return labels(append([]string{"scenario", r.Scenario, "metric", r.Metric, "arm", arm, "baseline", r.baselineName()}, extra...)...)
}

// labels joins name-value pairs into a label set, each value escaped as
// OpenMetrics says (backslash, double quote and line feed).
func labels(kv ...string) string {
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, fmt.Sprintf(`%s="%s"`, kv[i], esc.Replace(kv[i+1])))
	}
	return strings.Join(parts, ",")
}
