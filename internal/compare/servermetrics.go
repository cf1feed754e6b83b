package compare

import (
	"fmt"
	"math"

	"github.com/abbench/abbench/internal/reason"
)

// serverMetrics holds the arms to the server's own counts under a
// server_metric criterion with within: each arm's value per run (the
// mean of its counted runs) against the baseline's, within the
// criterion's percentage. Preemptions, cache hits or queue time that
// differ between the arms are a difference nobody declared.
func (g *gate) serverMetrics() {
	type key struct{ criterion, metric, at string }
	var order []key
	within := map[key]float64{}
	values := map[key]map[string][]float64{}
	for _, run := range g.runs {
		if !counted(run) {
			continue
		}
		for _, sm := range run.Evidence.ServerMetrics {
			if sm.Within == nil || sm.Value == nil {
				continue
			}
			k := key{sm.Criterion, sm.Metric, sm.At}
			if _, ok := values[k]; !ok {
				order = append(order, k)
				values[k] = map[string][]float64{}
				within[k] = *sm.Within
			}
			values[k][run.Evidence.Arm] = append(values[k][run.Evidence.Arm], *sm.Value)
		}
	}
	for _, k := range order {
		base, ok := meanOf(values[k][g.r.Baseline])
		if !ok {
			continue // the baseline's runs are censored for their own reasons
		}
		for _, arm := range g.arms {
			m, ok := meanOf(values[k][arm])
			if arm == g.r.Baseline || !ok || m == base {
				continue
			}
			diff := math.Inf(1)
			if base != 0 {
				diff = 100 * (m - base) / math.Abs(base)
			}
			if math.Abs(diff) > within[k] {
				g.add(reason.New(reason.ServerMetric, "arm %s's servers counted %s %s %g per run, the baseline %s's %g (%s, server_metric allows %g%%): the arms' servers did not run alike",
					arm, k.metric, atWords(k.at), m, g.r.Baseline, base, pct(diff), within[k]))
			}
		}
	}
}

func atWords(at string) string {
	switch at {
	case "before":
		return "before the client"
	case "after":
		return "after the drain"
	}
	return "during the run"
}

func pct(diff float64) string {
	if math.IsInf(diff, 0) {
		return "the baseline's is 0"
	}
	return fmt.Sprintf("%+.1f%%", diff)
}
