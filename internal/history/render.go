package history

import (
	"encoding/json"
	"io"
	"time"

	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/textout"
)

// Text writes each series: its span, change points (the commit where each
// begins) and confounds.
func Text(w io.Writer, series []Series, d Detector) error {
	out := textout.New(w)
	d = d.defaults()
	if len(series) == 0 {
		out.Println("no runs in the store match (add some with abbench history add)")
		return out.Err()
	}
	for i, s := range series {
		if i > 0 {
			out.Println()
		}
		dir := "higher is better"
		if !s.HigherBetter {
			dir = "lower is better"
		}
		first, last := s.Points[0], s.Points[len(s.Points)-1]
		out.Printf("%s (%s): %d run(s), %s to %s, latest %s\n", s.Name(), dir,
			len(s.Points), day(first.Time), day(last.Time), numfmt.Value(*last.Value))
		if len(s.Changes) == 0 {
			out.Printf("  no change point (E-Divisive means, p <= %s, at least %d runs a side)\n", numfmt.Value(d.MaxP), d.MinSize)
		}
		for _, c := range s.Changes {
			p := s.Points[c.Index]
			way := "improved"
			if s.Regression(c) {
				way = "regressed"
			}
			out.Printf("  change at run %d (%s%s): %s -> %s (%+.2f%%), %s: %s\n", c.Index+1, p.Time.Format(time.RFC3339), sourceNote(p), numfmt.Value(c.Before), numfmt.Value(c.After), c.Pct, numfmt.PEquals(c.P), way)
		}
		for _, c := range s.Confounds {
			out.Printf("  note: %s\n", c)
		}
	}
	return out.Err()
}

func day(t time.Time) string { return t.Format("2006-01-02") }

func sourceNote(e Entry) string {
	if e.Source == "" {
		return ""
	}
	return ", source " + short(e.Source)
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// PerfDBSchema names each record of the perf-database export
// (docs/schema/perfdb.schema.json).
const PerfDBSchema = "abbench-perfdb-v1"

// PerfDB writes every entry as one NDJSON record in the typed-prefix
// convention perf databases use (TensorRT-LLM's among them): each field's
// prefix names its type, b_ boolean, d_ double, l_ integer, s_ string,
// ts_ timestamp (RFC 3339, UTC). Every stored entry is accepted evidence,
// so b_is_valid is true throughout. s_build is on every record ("" where
// the arms are not builds), as docs/history.md lists it.
func PerfDB(w io.Writer, entries []Entry, f Filter) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if !f.match(e) {
			continue
		}
		rec := map[string]any{
			"s_schema": PerfDBSchema, "s_build": e.Build,
			"b_is_valid": true, "b_higher_is_better": e.HigherBetter, "b_signed": e.Signed,
			"s_kind": e.Kind, "s_key": e.Key, "s_scenario": e.Scenario, "s_arm": e.Arm, "s_metric": e.Metric,
			"s_matched_digest": e.MatchedDigest, "s_machine": e.Machine, "s_source": e.Source,
			"ts_created": e.Time.UTC().Format(time.RFC3339), "ts_added": e.Added.UTC().Format(time.RFC3339),
		}
		if e.Value != nil {
			rec["d_value"] = *e.Value
		}
		if e.Cell != "" {
			rec["s_cell"] = e.Cell
		}
		if e.Kind == KindComparison {
			rec["s_baseline"], rec["s_verdict"], rec["s_method"], rec["l_n"] = e.Baseline, e.Verdict, e.Method, e.N
			if e.DeltaPct != nil {
				rec["d_delta_pct"] = *e.DeltaPct
			}
			if e.Interval != nil {
				rec["d_interval_low_pct"], rec["d_interval_high_pct"] = e.Interval[0], e.Interval[1]
			}
			if e.P != nil {
				rec["d_p"] = *e.P
			}
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}
