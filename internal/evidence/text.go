package evidence

import (
	"io"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// Headline is the record metric compared by default.
func (e *Evidence) Headline() string {
	if e.HeadlineMetric == "" {
		return scenarios.DefaultMetric
	}
	return e.HeadlineMetric
}

// WriteText prints the evidence for a person: the verdict, the workload
// digest, the headline metric, every criterion, and every reason.
func (e *Evidence) WriteText(w io.Writer) error {
	out := textout.New(w)
	verdict := "accepted"
	if !e.Accepted {
		verdict = "NOT accepted"
	}
	out.Printf("evidence: %s\n", verdict)
	if e.Workload != nil {
		out.Printf("workload digest: %s\n", e.Workload.Fit("workload digest: ", termwidth.Of(w)))
	}
	if t := e.Throughput; t != nil {
		metric := e.Headline()
		if v, ok := t.Metrics[metric]; ok {
			out.Printf("%s: %s (%s record, valid %v)\n", metric, numfmt.Value(v), t.Format, t.Valid)
		} else {
			out.Printf("%s: none (%s record, valid %v)\n", metric, t.Format, t.Valid)
		}
	}
	if t := e.GPUTelemetry; t != nil {
		for _, g := range t.GPUs {
			out.Printf("%s\n", gpuLine(g))
		}
		if t.Downsampled > 0 || t.Dropped > 0 {
			out.Printf("gpu samples: %d kept, %d left out to keep the phase within the cap (the kept ones stand for them), %d not kept\n", t.Samples, t.Downsampled, t.Dropped)
		}
	}
	if len(e.Criteria) > 0 {
		var rows [][]string
		for _, c := range e.Criteria {
			mark := "✓"
			if !c.OK {
				mark = "✗"
			}
			codes := make([]string, len(c.Codes))
			for i, code := range c.Codes {
				codes[i] = string(code)
			}
			rows = append(rows, []string{mark, c.ID, c.Detail, strings.Join(codes, ", ")})
		}
		out.Println()
		if err := texttable.Write(out, []string{"", "criterion", "detail", "censor"}, rows); err != nil {
			return err
		}
	}
	if len(e.Reasons) > 0 {
		out.Println("\nreasons, root causes first:")
		for _, r := range e.RootCausesFirst() {
			for _, line := range r.Lines() {
				out.Printf("  %s\n", line)
			}
		}
	}
	return out.Err()
}
