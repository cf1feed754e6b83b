package evidence

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/scenarios"
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
	c.e.Metrics = t.Metrics
	var rec *Record
	rel, data, err := c.readLocal(expanded)
	if err != nil {
		rec = records.NotRead(t.Format, rel, strings.ReplaceAll(err.Error(), c.dir+string(filepath.Separator), ""))
	} else {
		rec = records.Parse(data, rel, records.Spec{Format: t.Format, Requested: requested, Pattern: t.Pattern, Metric: metric, Flag: t.Valid, Result: t.Result, SLO: t.SLO})
		c.input(rel)
	}
	rec.File = rel
	c.e.Throughput = rec
}

// outputTokens is {output_tokens: equal} within one run: the record must
// say how many tokens the run generated; compare holds the arms' counts
// to each other (output-length-mismatch), within the criterion's
// tolerance, which the evidence carries for it.
func (c *collector) outputTokens(cr scenarios.Criterion, fail func(reason.Reason)) string {
	within, _ := cr.OutputTolerance() // validated
	c.e.OutputTokensWithin = &within
	r := c.e.Throughput
	if r == nil || r.OutputTokens == nil {
		fail(reason.New(reason.ThroughputInvalid, "the record does not say how many output tokens the run generated (total_output_tokens): the arms cannot be held to equal work"))
		return ""
	}
	return fmt.Sprintf("%d output tokens generated, held to the other arms' by compare (within %g%%)", *r.OutputTokens, within)
}
