package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/records"
)

// metrics checks what the scenario compares and the work its arms must
// share: every declared metric one its format's records can hold, the
// SLOs that give goodput, and {output_tokens: equal}. A metric no record
// can hold would otherwise be found only after every run, by compare.
func (v *validator) metrics() {
	t := v.s.Evidence.Throughput
	tp := p("evidence", "throughput")
	if t != nil {
		v.provided(append(tp, "metric"), t.Metric)
		for i, m := range t.Metrics {
			v.provided(append(tp, "metrics", i), m)
			if slices.Index(t.Metrics, m) != i {
				v.at(append(tp, "metrics", i), "metric %q is named twice", m)
			}
		}
		v.slo(append(tp, "slo"), t)
	}
	for i, c := range v.s.Acceptance {
		switch {
		case c.Kind() == "output_tokens":
			v.outputTokens(p("acceptance", i), i+1, c)
		case c.Within != "" && c.Kind() != "server_metric":
			v.at(p("acceptance", i, "within"), "criterion %d: within %q is only for output_tokens", i+1, c.Within)
		}
	}
}

// provided refuses a metric the scenario's record cannot hold
// (Scenario.MetricProblem), listing those it can.
func (v *validator) provided(path []any, metric string) {
	if r := v.s.MetricProblem(metric); r != nil {
		v.at(path, "%s", r.Text())
	}
}

// slo checks the objectives: numbers of ms at least 0, one above, of a
// format with per-request lists (the goodput is computed from them).
func (v *validator) slo(path []any, t *Throughput) {
	s := t.SLO
	if s == nil {
		return
	}
	refused := false
	for _, o := range []struct {
		key string
		ms  float64
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"e2e", s.E2E}} {
		switch {
		case o.ms < 0 || math.IsNaN(o.ms) || math.IsInf(o.ms, 0):
			v.at(append(path, o.key), "slo.%s %v: a latency in ms, above 0", o.key, o.ms)
			refused = true
		case o.ms > 0 && o.ms < 1:
			// Seconds written where ms are read: no request meets the
			// objective, and goodput is left out of every record.
			v.warn(append(path, o.key), "slo.%s %v ms: objectives are in milliseconds, and below 1 ms hardly a request meets one (seconds? write %v)", o.key, o.ms, 1000*o.ms)
		}
	}
	if !s.Set() && !refused { // an objective refused above was declared
		v.at(path, "slo declares no objective: give ttft, tpot or e2e in ms (ttft: 500)")
	}
	if !records.Provides(t.Format, records.Goodput, true) || !records.MetricsKnown(t.Format) {
		v.at(path, "slo: %s records have no per-request latencies to count the requests that met it (vllm, vllm-append, trtllm and sglang results do, saved with their per-request lists: --save-detailed)", t.Format)
	}
}

// outputTokens checks {output_tokens: equal}: its word, its tolerance,
// and a record that counts the tokens generated.
func (v *validator) outputTokens(cp []any, n int, c Criterion) {
	if c.OutputTokens != "equal" {
		v.at(append(cp, "output_tokens"), "output_tokens: %q is not allowed (allowed: equal, with within: N%% for a tolerance)", c.OutputTokens)
	}
	if _, err := c.OutputTolerance(); err != nil {
		v.at(append(cp, "within"), "criterion %d: %v", n, err)
	}
	if t := v.s.Evidence.Throughput; t == nil || !records.CountsOutputTokens(t.Format) {
		v.at(cp, "criterion %d (output_tokens) needs a record that counts the tokens generated (total_output_tokens: formats vllm, vllm-append, trtllm, sglang, and abbench's own client)", n)
	}
}

// OutputTolerance is the percentage by which the arms' output tokens per
// run may differ under {output_tokens: equal}: its within ("2%"), 0 when
// none is given.
func (c Criterion) OutputTolerance() (float64, error) {
	if c.Within == "" {
		return 0, nil
	}
	if c.OutputTokens == "" {
		return 0, fmt.Errorf("within %q is only for output_tokens", c.Within)
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(c.Within), "%")
	pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || pct < 0 || pct >= 100 || math.IsNaN(pct) {
		return 0, fmt.Errorf("within %q: a percentage at least 0 and below 100, such as 2%%", c.Within)
	}
	return pct, nil
}
