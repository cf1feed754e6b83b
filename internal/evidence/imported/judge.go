package imported

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/scenarios"
)

// Scenario is the scenario name of every imported run: "imported FORMAT".
func Scenario(format string) string { return "imported " + format }

// evidence reads data as o.Format and judges it as a run's record is
// judged, from its own counts (the tool decided how many requests): every
// request it attempted succeeded, and the record is valid.
func (o Options) evidence(arm string, i int, name string, data []byte, matched string) *evidence.Evidence {
	metric := cmp.Or(records.DefaultMetric(o.Format), scenarios.DefaultMetric)
	rec := records.Parse(data, name, records.Spec{Format: o.Format, Metric: metric, Result: o.Result})
	rec.File = name
	sum := sha256.Sum256(data)
	e := &evidence.Evidence{
		Schema: evidence.Schema, Scenario: Scenario(o.Format), MatchedDigest: matched, Arm: arm, ArmEnv: map[string]string{},
		Baseline: o.Arms[0].Name, HeadlineMetric: metric,
		// The file's content is the run: one file imported twice (into
		// one arm or two) is one run given twice, which compare censors
		// (duplicate-run).
		Token:    "imported-" + hex.EncodeToString(sum[:8]),
		RunState: "imported", Reasons: []reason.Reason{}, Throughput: rec, Ranks: []evidence.RankFacts{}, Inputs: []string{name},
	}
	for _, a := range o.Arms {
		e.Arms = append(e.Arms, a.Name)
	}
	for _, c := range []struct {
		kind  string
		judge func(*records.Record) (string, *reason.Reason)
	}{{"requests", requestsOf}, {"record", validity}} {
		detail, fail := c.judge(rec)
		cr := evidence.Criterion{ID: fmt.Sprintf("%d-%s", len(e.Criteria)+1, c.kind), Kind: c.kind, OK: fail == nil, Detail: detail}
		if fail != nil {
			cr.Detail, cr.Codes = fail.Detail, []reason.Code{fail.Code}
			e.Reasons = append(e.Reasons, *fail)
		}
		e.Criteria = append(e.Criteria, cr)
	}
	e.Accepted = len(e.Reasons) == 0
	return e
}

// requestsOf holds the record to its own counts: nothing it attempted
// failed (a record that cannot be read says nothing of its requests: the
// record's criterion names that cause).
func requestsOf(r *records.Record) (string, *reason.Reason) {
	unit := r.WorkUnit()
	switch {
	case r.Unreadable:
		return "not known: the record cannot be read", nil
	case r.Failed > 0:
		return "", fail(reason.RequestsFailed, "%s record %s: %d of %d %s failed", r.Format, r.File, r.Failed, max(r.Requested, r.Completed+r.Failed), unit)
	case r.Completed < 0 && r.Failed < 0:
		return "", fail(reason.RequestsFailed, "%s record %s says neither how many %s completed nor how many failed", r.Format, r.File, unit)
	case r.Requested >= 0 && r.Completed >= 0 && r.Completed < r.Requested:
		return "", fail(reason.RequestsFailed, "%s record %s: %d of %d %s completed", r.Format, r.File, r.Completed, r.Requested, unit)
	case r.Completed >= 0:
		return fmt.Sprintf("%d %s, none failed (the tool decided how many)", r.Completed, unit), nil
	}
	return fmt.Sprintf("no %s failed", unit), nil
}

// validity is the record's own judgment: it parsed, and broke no rule
// of its format (records' finish).
func validity(r *records.Record) (string, *reason.Reason) {
	if !r.Valid {
		return "", fail(reason.ThroughputInvalid, "%s record %s: %s", r.Format, r.File, strings.Join(r.Problems, "; "))
	}
	return fmt.Sprintf("%s record valid", r.Format), nil
}

func fail(code reason.Code, format string, args ...any) *reason.Reason {
	rs := reason.New(code, format, args...)
	return &rs
}
