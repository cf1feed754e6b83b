package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/promtext"
)

// The moments a server_metric criterion reads (Criterion.At): the scrape
// before the client, the one after the drain, or the change between them.
const (
	MetricBefore = "before"
	MetricAfter  = "after"
	MetricChange = "change"
)

// applyMetricDefaults writes out each server_metric criterion's at, so
// that one left out and one spelled change encode alike.
func applyMetricDefaults(s *Scenario) {
	for i := range s.Acceptance {
		if c := &s.Acceptance[i]; c.ServerMetric != "" && c.At == "" {
			c.At = MetricChange
		}
	}
}

// MetricAt is the criterion's at, "change" when unset.
func (c Criterion) MetricAt() string {
	if c.At == "" {
		return MetricChange
	}
	return c.At
}

// MetricSelector is the server_metric criterion's metric: a name, with
// the labels its series must have ({engine="0"}) when it gives some.
func (c Criterion) MetricSelector() (promtext.Sample, error) {
	sel, err := promtext.ParseSeries(c.ServerMetric, false)
	if err != nil {
		return sel, fmt.Errorf("server_metric %q: %v (a metric name as the endpoint gives it, with labels in braces if it selects series)", c.ServerMetric, err)
	}
	return sel, nil
}

// MetricEquals is the value a server_metric criterion requires (equals),
// and whether it gives one.
func (c Criterion) MetricEquals() (float64, bool, error) {
	if c.Equals == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(c.Equals), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, true, fmt.Errorf("equals %q: a number, such as 0", c.Equals)
	}
	return v, true, nil
}

// MetricWithin is the percentage by which the arms' values may differ
// (within: 5%), and whether it gives one.
func (c Criterion) MetricWithin() (float64, bool, error) {
	if c.Within == "" {
		return 0, false, nil
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(c.Within), "%")
	pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || pct < 0 || math.IsNaN(pct) || math.IsInf(pct, 0) {
		return 0, true, fmt.Errorf("within %q: a percentage at least 0, such as 5%%", c.Within)
	}
	return pct, true, nil
}

// MetricsRole is the role whose endpoint a server_metric criterion
// reads: its role, else the one role that declares metrics (nil when
// there is none, or several).
func (s *Scenario) MetricsRole(c Criterion) *Role {
	if c.Role != "" {
		return s.Role(c.Role)
	}
	var found *Role
	for i := range s.Roles {
		if s.Roles[i].Metrics != "" {
			if found != nil {
				return nil
			}
			found = &s.Roles[i]
		}
	}
	return found
}

// roleMetrics checks each role's metrics: a template of an http(s) URL.
func (v *validator) roleMetrics() {
	for i, r := range v.s.Roles {
		if r.Metrics == "" {
			continue
		}
		path := p("roles", i, "metrics")
		v.template(path, r.Metrics)
		if !strings.HasPrefix(r.Metrics, "http://") && !strings.HasPrefix(r.Metrics, "https://") {
			v.at(path, "metrics %q: the URL of each rank's Prometheus endpoint, http:// or https://, such as http://127.0.0.1:{{.Port \"server\"}}/metrics", r.Metrics)
		}
	}
}

// serverMetric checks the nth criterion, a server_metric: its metric, its
// role's endpoint, when it reads, and one of equals or within.
func (v *validator) serverMetric(cp []any, n int, c Criterion) {
	if _, err := c.MetricSelector(); err != nil {
		v.at(append(cp, "server_metric"), "%v", err)
	}
	switch r := v.s.MetricsRole(c); {
	case c.Role != "" && r == nil:
		v.at(append(cp, "role"), "role %q does not exist", c.Role)
	case r == nil:
		v.at(cp, "criterion %d (server_metric) needs a role with metrics: give one role metrics: URL, or name the role (role: NAME) when several have it", n)
	case r.Metrics == "":
		v.at(append(cp, "role"), "criterion %d reads the metrics of role %s, which declares no metrics: URL", n, r.Name)
	}
	if at := c.MetricAt(); at != MetricBefore && at != MetricAfter && at != MetricChange {
		v.at(append(cp, "at"), "at %q: before (the scrape before the client), after (after the drain) or change (after minus before)", c.At)
	}
	_, hasEquals, errEquals := c.MetricEquals()
	_, hasWithin, errWithin := c.MetricWithin()
	switch {
	case hasEquals == hasWithin:
		v.at(cp, "criterion %d (server_metric) needs one of equals: N (every run) or within: N%% (the arms against the baseline)", n)
	case errEquals != nil:
		v.at(append(cp, "equals"), "%v", errEquals)
	case errWithin != nil:
		v.at(append(cp, "within"), "%v", errWithin)
	}
}
