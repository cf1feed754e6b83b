package main

import (
	"testing"

	"github.com/abbench/abbench/internal/scenarios"
)

// The metric a sequential campaign of several metrics stops on: the first
// --metric; else the scenario's headline where its metrics hold it, the
// format's default headline when the scenario names none; else their
// first. Never a metric outside the family.
func TestStopMetricIsOfTheFamily(t *testing.T) {
	scenario := func(metric string, family ...string) *scenarios.Scenario {
		s := &scenarios.Scenario{}
		s.Evidence.Throughput = &scenarios.Throughput{Format: "vllm", Metric: metric, Metrics: family}
		return s
	}
	for _, c := range []struct {
		name  string
		given []string
		s     *scenarios.Scenario
		want  string
	}{
		{"the first given", []string{"p99_ttft_ms", "median_itl_ms"}, scenario("", "goodput", "output_throughput"), "p99_ttft_ms"},
		{"the scenario's headline in its family", nil, scenario("goodput", "p99_ttft_ms", "goodput"), "goodput"},
		{"the format's default headline in the family", nil, scenario("", "p99_ttft_ms", "output_throughput"), "output_throughput"},
		{"the family's first", nil, scenario("", "p99_ttft_ms", "median_itl_ms"), "p99_ttft_ms"},
	} {
		if got := stopMetric(c.given, c.s); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
