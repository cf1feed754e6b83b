package compare

import (
	"fmt"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
)

// pairChecks warns about what the paired tests assume and the pairs d
// (in block order, baseFirst their order) say is not so: neighbouring
// pairs alike (lag-1 autocorrelation: the interval is then too narrow),
// and a change that moves across the campaign (the delta is then its
// average over the campaign, not a constant).
func (g *gate) pairChecks(treat, base string, d []float64, baseFirst []bool) {
	w := func(format string, a ...any) {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: ", treat, base)+fmt.Sprintf(format, a...))
	}
	if s, ok := decide.SerialOf(d, baseFirst); ok && s.P <= decide.DefaultRule.Alpha {
		w("neighbouring pairs are alike (lag-1 autocorrelation %+.2f of the pairs' ratios, permutation %s): the tests take the pairs as independent, so the interval is too narrow; find what carries over from one pair to the next (heat, caches, a queue), or space the pairs in time", s.Lag1, numfmt.PEquals(s.P))
	}
	if tr, ok := decide.ChangeTrend(d, baseFirst); ok && tr.P < driftP {
		w("the change drifted across the campaign: %+.2f%% per pair (%s); the delta is its average over these pairs, not a constant", tr.PctPerRun, numfmt.PEquals(tr.P))
	}
}

// driftP is the p below which a trend through the campaign is warned
// about: the runs' drift and the change's alike.
const driftP = 0.01
