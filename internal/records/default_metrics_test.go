package records

import (
	"slices"
	"testing"
)

// Each format's default headline metric is the one its valid real
// records hold: a scenario that names no metric compares a number every
// record of its format has. A row for a format without a parser is dead.
func TestDefaultMetricsAreInTheirRecords(t *testing.T) {
	for format := range defaultMetrics {
		if !slices.Contains(Formats(), format) {
			t.Errorf("defaultMetrics names %q, which no parser reads", format)
		}
	}
	for rel, c := range corpus {
		metric := DefaultMetric(c.Format)
		if metric == "" || !c.Valid || c.Metric != "" && c.Metric != metric {
			// A row that names another metric is a file whose headline
			// is not its format's default (LoadGen's SingleStream leads
			// with a latency): its scenario must name the metric.
			continue
		}
		if r := Parse(corpusBytes(t, rel), rel, Spec{Format: c.Format, Result: c.Result, Metric: metric}); !r.Valid {
			t.Errorf("%s: invalid with its format's default metric %s: %q", rel, metric, r.Problems)
		}
	}
}
