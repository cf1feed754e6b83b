package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
)

// Under {server_metric: M, within: 5%}, arms whose servers counted M
// differently per run (preemptions 20% apart) are censored server-metric
// naming the metric and both values; within the tolerance, they stand.
func TestServerMetricsWithinAcrossArms(t *testing.T) {
	for _, c := range []struct {
		name            string
		async, blocking float64
		censored        bool
		detail          string
	}{
		{"20% apart", 120, 100, true, "arm async's servers counted vllm:num_preemptions_total during the run 120 per run, the baseline blocking's 100 (+20.0%, server_metric allows 5%)"},
		{"2% apart", 102, 100, false, ""},
		{"none in the baseline", 3, 0, true, "the baseline's is 0"},
		{"none in either", 0, 0, false, ""},
	} {
		runs := runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {150, 151, 149}})
		within := 5.0
		for _, run := range runs {
			v := map[string]float64{"async": c.async, "blocking": c.blocking}[run.Evidence.Arm]
			run.Evidence.ServerMetrics = []evidence.ServerMetric{{Criterion: "9-server_metric", Metric: "vllm:num_preemptions_total", At: "change", Value: &v, Within: &within}}
		}
		r := Compare(runs, Options{})
		got := r.Verdict == Censored && codes(r) == string(reason.ServerMetric)
		if got != c.censored || c.censored && !strings.Contains(r.Reasons[0].Detail, c.detail) {
			t.Errorf("%s: verdict %s, reasons %v", c.name, r.Verdict, r.Reasons)
		}
	}
}
