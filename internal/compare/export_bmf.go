package compare

import (
	"encoding/json"
	"io"
)

// bmfMetric is one measure's value in Bencher Metric Format, with its
// bounds (https://bencher.dev/docs/reference/bencher-metric-format/).
type bmfMetric struct {
	Value float64 `json:"value"`
	Lower float64 `json:"lower_value"`
	Upper float64 `json:"upper_value"`
}

// BMF writes the comparison in Bencher Metric Format: one benchmark per
// treatment (benchmarkName), its measure METRIC_delta_pct the change in
// percent with the interval as its lower and upper value, so a Bencher
// threshold gates on abbench's paired delta instead of on single runs.
// A censored comparison is {}: no delta is reported.
func (r Report) BMF(w io.Writer) error {
	doc := map[string]map[string]bmfMetric{}
	for _, d := range r.exportedDeltas() {
		doc[r.benchmarkName(d.Arm)] = map[string]bmfMetric{
			r.Metric + "_delta_pct": {Value: d.pct, Lower: d.lo, Upper: d.hi},
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
