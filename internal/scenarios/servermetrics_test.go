package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestServerMetricRefusals: a server_metric criterion names a metric (and
// labels) of a role that declares an http(s) metrics URL, when it reads,
// and one of equals or within; validate refuses each other form at its
// line.
func TestServerMetricRefusals(t *testing.T) {
	withMetrics := strings.Replace(base, `command: [srv, --rank, "{{.Rank}}"]}`, `command: [srv, --rank, "{{.Rank}}"], metrics: "http://127.0.0.1:{{.Port \"srv\"}}/metrics"}`, 1)
	for _, c := range []struct{ yaml, criterion, want string }{
		{withMetrics, "{server_metric: 'vllm:hits{engine=0}', equals: 0}", "server_metric \"vllm:hits{engine=0}\": vllm:hits: label engine: the value is not quoted"},
		{withMetrics, "{server_metric: hits, at: during, equals: 0}", `at "during": before (the scrape before the client), after (after the drain) or change`},
		{withMetrics, "{server_metric: hits}", "needs one of equals: N (every run) or within: N% (the arms against the baseline)"},
		{withMetrics, "{server_metric: hits, equals: 0, within: 5%}", "needs one of equals: N"},
		{withMetrics, "{server_metric: hits, equals: none}", `equals "none": a number, such as 0`},
		{withMetrics, "{server_metric: hits, within: 5}", `within "5": a percentage at least 0, such as 5%`},
		{withMetrics, "{server_metric: hits, role: client, equals: 0}", "reads the metrics of role client, which declares no metrics: URL"},
		{withMetrics, "{server_metric: hits, role: gateway, equals: 0}", `role "gateway" does not exist`},
		{base, "{server_metric: hits, equals: 0}", "needs a role with metrics: give one role metrics: URL"},
		{strings.Replace(withMetrics, `"http://127.0.0.1:`, `"127.0.0.1:`, 1), "{requests: all}", `metrics "127.0.0.1:{{.Port \"srv\"}}/metrics": the URL of each rank's Prometheus endpoint, http:// or https://`},
	} {
		_, err := load(t, c.yaml+"  - "+c.criterion+"\n")
		var errs Errors
		if !errors.As(err, &errs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.criterion, err, c.want)
		}
	}
	s, err := load(t, withMetrics+"  - {server_metric: 'vllm:prefix_cache_hits_total{engine=\"0\"}', at: before, equals: 0}\n  - {server_metric: vllm:num_preemptions_total, within: 5%}\n")
	if err != nil {
		t.Fatal(err)
	}
	spelled, err := load(t, withMetrics+"  - {server_metric: 'vllm:prefix_cache_hits_total{engine=\"0\"}', at: before, equals: 0}\n  - {server_metric: vllm:num_preemptions_total, at: change, within: 5%}\n")
	if err != nil || spelled.MatchedDigest() != s.MatchedDigest() {
		t.Errorf("at: change spelled out changes the matched digest (%v)", err)
	}
	c := s.Acceptance[1]
	if sel, _ := c.MetricSelector(); c.Kind() != "server_metric" || c.MetricAt() != "before" || sel.Labels["engine"] != "0" || s.MetricsRole(c).Name != "server" || s.Acceptance[2].MetricAt() != "change" {
		t.Errorf("criterion %+v", c)
	}
}
