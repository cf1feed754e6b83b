package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestMetricsTheFormatProvides: validate refuses, before anything runs,
// a metric the format's records cannot hold (a typo, a latency of a kind
// the tool does not write), naming the field's line and listing the
// metrics the format has; goodput needs SLOs, and SLOs a format with
// per-request lists. Before, an unknown metric passed validate and
// censored every run after the campaign.
func TestMetricsTheFormatProvides(t *testing.T) {
	for _, c := range []struct{ throughput, acceptance, want string }{
		{"format: vllm, metric: p99_ttf_ms}", "", `s.yaml:12: metric "p99_ttf_ms": vllm records have no such metric; did you mean p99_ttft_ms? (they have output_throughput`},
		{"format: vllm, metrics: [p99_ttft_ms, median_itl_mss]}", "", `metric "median_itl_mss": vllm records have no such metric`},
		{"format: vllm, metrics: [p99_ttft_ms, p99_ttft_ms]}", "", `metric "p99_ttft_ms" is named twice`},
		{"format: vllm, metrics: [goodput]}", "", "metric goodput needs the requests' objectives: declare evidence.throughput.slo"},
		{"format: aiperf, metrics: [p99_tpot_ms]}", "", `aiperf records have no such metric`},
		{"format: console, metrics: [goodput], slo: {ttft: 200}}", "", "slo: console records have no per-request latencies"},
		{"format: vllm, slo: {ttft: -1}}", "", "slo.ttft -1: a latency in ms, above 0"},
		{"format: vllm, slo: {}}", "", "slo declares no objective"},
		// A duration where ms are read: said how to write it.
		{"format: vllm, slo: {ttft: 2s}}", "", `found str "2s" where a number is expected: objectives are numbers of milliseconds (2000 for 2s)`},
		{"format: vllm, slo: {ttft_ms: 200}}", "", `unknown key "ttft_ms" in slo (allowed: e2e, tpot, ttft)`}, // not "field ttft_ms not found in type records.SLO"
		{"format: vllm}", "  - {output_tokens: equal, within: 200%}\n", `within "200%": a percentage at least 0 and below 100`},
		{"format: vllm}", "  - {output_tokens: same}\n", `output_tokens: "same" is not allowed`},
		{"format: vllm}", "  - {requests: all, within: 2%}\n", `within "2%" is only for output_tokens`},
		{"format: aiperf}", "  - {output_tokens: equal}\n", "needs a record that counts the tokens generated"},
	} {
		_, err := load(t, strings.Replace(base, "format: vllm}", c.throughput, 1)+c.acceptance)
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.throughput, c.acceptance, err, c.want)
		}
	}
	// An objective refused is one declared: not "declares no objective".
	_, err := load(t, strings.Replace(base, "format: vllm}", "format: vllm, slo: {ttft: 0, tpot: -5}}", 1))
	if err == nil || !strings.Contains(err.Error(), "slo.tpot -5") || strings.Contains(err.Error(), "declares no objective") {
		t.Errorf("ttft 0, tpot -5: %v", err)
	}
	for _, ok := range []struct{ throughput, acceptance string }{
		{"format: vllm, metrics: [p99_ttft_ms, median_itl_ms, p99.9_e2el_ms, goodput], slo: {ttft: 200, tpot: 50, e2e: 2000}}", "  - {output_tokens: equal}\n"},
		{"format: sglang, metric: mean_e2el_ms}", "  - {output_tokens: equal, within: 2%}\n"},
		{"format: guidellm, metrics: [p99_tpot_ms]}", ""},
		{"format: wrk, metrics: [p99_latency_ms]}", ""}, // known from its files only
	} {
		s, err := load(t, strings.Replace(base, "format: vllm}", ok.throughput, 1)+ok.acceptance)
		if err != nil {
			t.Errorf("%s: %v", ok.throughput, err)
			continue
		}
		if ok.acceptance != "" && s.Acceptance[len(s.Acceptance)-1].Kind() != "output_tokens" {
			t.Errorf("%s: kind %q", ok.acceptance, s.Acceptance[len(s.Acceptance)-1].Kind())
		}
	}
}

// An objective below 1 ms is seconds written where ms are read: no
// request meets it and goodput is left out of every record, so validate
// warns, at its line, with the value in ms. A newcomer's slo: {ttft:
// 0.002} validated silently and goodput then "did not exist".
func TestSLOInSecondsIsWarnedOf(t *testing.T) {
	s, err := load(t, strings.Replace(base, "format: vllm}", "format: vllm, slo: {ttft: 0.002, e2e: 3000}}", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 12 || !strings.Contains(s.Warnings[0].Msg, "slo.ttft 0.002 ms: objectives are in milliseconds") || !strings.Contains(s.Warnings[0].Msg, "write 2)") {
		t.Errorf("warnings %v, want one at line 12 on slo.ttft", s.Warnings)
	}
}
