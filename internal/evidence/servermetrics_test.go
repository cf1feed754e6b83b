package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/metricscrape"
	"github.com/abbench/abbench/internal/reason"
)

// metricsYAML gives the ctx ranks an endpoint and holds prefix cache hits
// before the client to 0 and preemptions during the run within 5%.
var metricsYAML = strings.Replace(scenarioYAML, "command: [x]}", `command: [x], metrics: "http://127.0.0.1:9/metrics"}`, 1) +
	"  - {server_metric: vllm:prefix_cache_hits_total, at: before, equals: 0}\n" +
	"  - {server_metric: 'vllm:num_preemptions_total{engine=\"0\"}', within: 5%}\n"

// scrapeFiles are the scrapes of both ctx ranks: hits before the client
// by rank, preemptions before and after.
func scrapeFiles(hits [2]int, preempted int) map[string]string {
	files := map[string]string{}
	var scrapes []string
	for rank := range 2 {
		for _, when := range []string{"before", "after"} {
			n := map[string]int{"before": 0, "after": preempted}[when]
			body := fmt.Sprintf("# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} %d.0\n"+
				"vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} %d.0\nvllm:num_preemptions_total{engine=\"1\",model_name=\"m\"} 1000.0\n", hits[rank], n)
			file := metricscrape.FileOf("ctx", rank, when)
			files[file] = body
			scrapes = append(scrapes, fmt.Sprintf(`{"role": "ctx", "rank": %d, "when": %q, "url": "http://127.0.0.1:9/metrics", "file": %q}`, rank, when, file))
		}
	}
	files[metricscrape.RecordFile] = fmt.Sprintf(`{"schema": %q, "scrapes": [%s]}`, metricscrape.Schema, strings.Join(scrapes, ","))
	return files
}

// A server whose prefix cache hits are not 0 before the client, under a
// criterion that requires 0, is censored server-metric naming the metric,
// the rank and the value; a run whose servers started cold keeps the
// change of its preemptions for compare; a scrape that failed, or a body
// that is not the format, is server-metric naming why.
func TestServerMetricCriterion(t *testing.T) {
	r := goodRun()
	r.yaml = metricsYAML
	r.files = scrapeFiles([2]int{0, 0}, 7)
	e := r.collect(t)
	if !e.Accepted || len(e.ServerMetrics) != 2 || *e.ServerMetrics[0].Value != 0 || *e.ServerMetrics[1].Value != 14 || *e.ServerMetrics[1].Within != 5 ||
		e.ServerMetrics[1].Criterion != "10-server_metric" {
		t.Fatalf("cold: accepted %v, reasons %v, metrics %+v", e.Accepted, e.Reasons, e.ServerMetrics)
	}
	r.files = scrapeFiles([2]int{0, 4096}, 7)
	e = r.collect(t)
	if e.Accepted || codesOf(e.Reasons) != "server-metric" || *e.Reasons[0].Rank != 1 ||
		!strings.Contains(e.Reasons[0].Detail, "ctx rank 1: vllm:prefix_cache_hits_total before the client was 4096, the criterion requires 0") {
		t.Fatalf("warm: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.files = scrapeFiles([2]int{0, 0}, 7)
	r.files[metricscrape.FileOf("ctx", 0, "after")] = "<html>busy</html>\n"
	e = r.collect(t)
	if e.Accepted || codesOf(e.Reasons) != "server-metric" || !strings.Contains(e.Reasons[0].Detail, "ctx rank 0: metrics/ctx-0-after.prom is not Prometheus' text format: line 1:") || e.ServerMetrics[1].Value != nil {
		t.Fatalf("not the format: reasons %v", e.Reasons)
	}
	r.files[metricscrape.RecordFile] = strings.Replace(r.files[metricscrape.RecordFile], `"file": "metrics/ctx-1-before.prom"`, `"error": "connection refused"`, 1)
	e = r.collect(t)
	if e.Accepted || !strings.Contains(e.Reasons[0].Detail, "ctx rank 1: its metrics scraped before the client could not be read: connection refused") {
		t.Fatalf("a failed scrape: reasons %v", e.Reasons)
	}
	r.files = nil
	if e := r.collect(t); e.Accepted || e.Reasons[0].Code != reason.ServerMetric || !strings.Contains(e.Reasons[0].Detail, "no scrape of the servers' metrics was recorded") {
		t.Fatalf("no scrapes: reasons %v", e.Reasons)
	}
}
