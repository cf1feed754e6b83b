package evidence

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/abbench/abbench/internal/metricscrape"
	"github.com/abbench/abbench/internal/promtext"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// ServerMetric is what one server_metric criterion read in this run: the
// metric's value at its moment, summed over the role's ranks, for
// compare to hold the arms to Within.
type ServerMetric struct {
	Criterion string `json:"criterion"`
	Metric    string `json:"metric"`
	Role      string `json:"role"`
	At        string `json:"at"`
	// Value is nil when a rank's scrape could not be read (the run's
	// reasons say why).
	Value  *float64 `json:"value"`
	Within *float64 `json:"within,omitempty"`
}

// serverMetric evaluates a server_metric criterion: the metric, read from
// each rank's scrapes, at its moment (before the client, after the
// drain, or the change between), equal to equals on every rank; its
// value kept for compare under within.
func (c *collector) serverMetric(id string, cr scenarios.Criterion, fail func(reason.Reason)) string {
	role := c.s.MetricsRole(cr)
	sel, _ := cr.MetricSelector() // validated
	at := cr.MetricAt()
	sm := ServerMetric{Criterion: id, Metric: cr.ServerMetric, Role: role.Name, At: at}
	if w, ok, _ := cr.MetricWithin(); ok {
		sm.Within = &w
	}
	defer func() { c.e.ServerMetrics = append(c.e.ServerMetrics, sm) }()
	scrapes, err := c.scrapes()
	if err != nil {
		fail(reason.New(reason.ServerMetric, "%v", err))
		return ""
	}
	total, read := 0.0, true
	want, equals, _ := cr.MetricEquals()
	for rank := range role.Ranks {
		v, err := c.metricAt(scrapes, role.Name, rank, at, sel)
		if err != nil {
			fail(reason.New(reason.ServerMetric, "%s rank %d: %v", role.Name, rank, err).At(c.e.Arm, role.Name, rank))
			read = false
			continue
		}
		total += v
		if equals && v != want {
			fail(reason.New(reason.ServerMetric, "%s rank %d: %s %s %g, the criterion requires %g", role.Name, rank, cr.ServerMetric, moment(at), v, want).At(c.e.Arm, role.Name, rank))
		}
	}
	if !read {
		return ""
	}
	sm.Value = &total
	if equals {
		return fmt.Sprintf("%s %s %g on every %s rank", cr.ServerMetric, moment(at), want, role.Name)
	}
	return fmt.Sprintf("%s %s %g over the %s ranks (the arms within %s)", cr.ServerMetric, moment(at), total, role.Name, cr.Within)
}

// moment says when a value was read, with its verb, for a detail.
func moment(at string) string {
	switch at {
	case scenarios.MetricBefore:
		return "before the client was"
	case scenarios.MetricAfter:
		return "after the drain was"
	}
	return "changed during the run by"
}

// scrapes reads the run's record of its scrapes once.
func (c *collector) scrapes() ([]metricscrape.Scrape, error) {
	if c.scraped != nil {
		return c.scraped.Scrapes, nil
	}
	rel, data, err := c.readLocal(metricscrape.RecordFile)
	if err != nil {
		return nil, fmt.Errorf("no scrape of the servers' metrics was recorded: %w", err)
	}
	c.input(rel)
	var rec metricscrape.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s does not parse: %v", rel, err)
	}
	if rec.Schema != metricscrape.Schema {
		return nil, fmt.Errorf("%s is of schema %q, not %s that this abbench reads", rel, rec.Schema, metricscrape.Schema)
	}
	c.scraped = &rec
	return rec.Scrapes, nil
}

// metricAt is the metric's value on role's rank at its moment.
func (c *collector) metricAt(scrapes []metricscrape.Scrape, role string, rank int, at string, sel promtext.Sample) (float64, error) {
	read := func(when string) (float64, error) {
		for _, s := range scrapes {
			if s.Role != role || s.Rank != rank || s.When != when {
				continue
			}
			if s.Error != "" {
				return 0, fmt.Errorf("its metrics scraped %s the client could not be read: %s", when, s.Error)
			}
			rel, data, err := c.readLocal(s.File)
			if err != nil {
				return 0, err
			}
			c.input(rel)
			samples, err := promtext.Parse(data)
			if err != nil {
				return 0, fmt.Errorf("%s is not Prometheus' text format: %w", rel, err)
			}
			v, n := promtext.Sum(samples, sel)
			if n == 0 || math.IsNaN(v) {
				return 0, fmt.Errorf("%s has no value of %s (%d series)", rel, sel.Name, n)
			}
			return v, nil
		}
		return 0, fmt.Errorf("its metrics were not scraped %s the client", when)
	}
	switch at {
	case scenarios.MetricBefore, scenarios.MetricAfter:
		return read(at)
	}
	before, err := read(scenarios.MetricBefore)
	if err != nil {
		return 0, err
	}
	after, err := read(scenarios.MetricAfter)
	return after - before, err
}
