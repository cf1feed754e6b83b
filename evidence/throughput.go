package evidence

import (
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/records"
	"github.com/abbench/abbench/scenarios"
)

// Record is a benchmark client's throughput record, parsed (package
// records reads each format).
type Record = records.Record

// throughput reads the scenario's throughput record, as the run wrote it.
func (c *collector) throughput() {
	t := c.s.Evidence.Throughput
	if t == nil {
		return
	}
	expanded, err := scenarios.Expand(t.File, c.data(nil, 0))
	if err != nil {
		return
	}
	requested := c.s.Workload.Total() // 0: the record says
	metric := t.Headline()
	c.e.HeadlineMetric = metric
	c.e.HigherIsBetter = t.HigherIsBetter
	var rec *Record
	rel, data, err := c.readLocal(expanded)
	if err != nil {
		rec = records.NotRead(t.Format, rel, strings.ReplaceAll(err.Error(), c.dir+string(filepath.Separator), ""))
	} else {
		rec = records.Parse(data, rel, records.Spec{Format: t.Format, Requested: requested, Pattern: t.Pattern, Metric: metric, Flag: t.Valid, Result: t.Result})
		c.input(rel)
	}
	rec.File = rel
	c.e.Throughput = rec
}
