package arms

import (
	"context"
	"path/filepath"

	"github.com/abbench/abbench/internal/metricscrape"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// scrapeMetrics scrapes the Prometheus endpoint of every rank of each
// role that declares metrics: before the client, and after the drain.
// A scrape that fails is recorded with its error; the evidence says
// what a criterion could not read. The record is written after each
// round, so a run stopped later keeps the scrape before its client.
func (c *controller) scrapeMetrics(ctx context.Context, when string) {
	var rec metricscrape.Record
	if when == metricscrape.After {
		if err := rundir.ReadJSON(filepath.Join(c.dir, metricscrape.RecordFile), &rec); err != nil {
			rec = metricscrape.Record{}
		}
	}
	rec.Schema = metricscrape.Schema
	scraped := false
	for i := range c.s.Roles {
		r := &c.s.Roles[i]
		if r.Metrics == "" {
			continue
		}
		for rank := range r.Ranks {
			secrets := redact.Values{}
			url, err := scenarios.ExpandSecrets(r.Metrics, c.data(r, rank), &secrets)
			s := metricscrape.Scrape{Role: r.Name, Rank: rank, When: when, Error: "the URL template: "}
			if err == nil {
				s = metricscrape.Get(ctx, c.dir, r.Name, rank, when, url)
			} else {
				s.Error += err.Error()
			}
			s.URL = redact.URL(secrets.In(s.URL))
			s.Error = redact.URL(secrets.In(s.Error))
			rec.Scrapes = append(rec.Scrapes, s)
			scraped = true
		}
	}
	if !scraped {
		return
	}
	if err := rundir.WriteJSON(filepath.Join(c.dir, metricscrape.RecordFile), rec); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the record of the metrics scrapes %s: %v", metricscrape.RecordFile, err))
	}
}
