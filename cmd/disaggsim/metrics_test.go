package main

import (
	"io"
	"net/http"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
	"github.com/abbench/abbench/internal/promtext"
)

// scrape reads url's /metrics as abbench does, and the sum of metric.
func scrape(t *testing.T, url, metric string) float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	samples, err := promtext.Parse(body)
	if err != nil {
		t.Fatalf("/metrics is not the text format: %v\n%s", err, body)
	}
	sel, _ := promtext.ParseSeries(metric, false)
	v, n := promtext.Sum(samples, sel)
	if n == 0 {
		t.Fatalf("/metrics has no %s:\n%s", metric, body)
	}
	return v
}

// TestMetricsCountCacheHits: /metrics is Prometheus' text format; a
// prompt served a second time is a prefix cache hit; under warm-cache=N
// the counter starts at N, as a server that kept an earlier run's cache.
func TestMetricsCountCacheHits(t *testing.T) {
	_, _, url := apiSystem(t, digest.TokensSorted)
	if v := scrape(t, url, "disaggsim_prefix_cache_hits_total"); v != 0 {
		t.Fatalf("a fresh server's hits: %v", v)
	}
	prompts := tokenWorkload(t)[:8]
	load(t, url, prompts, loadgen.Options{Concurrency: 4, MaxTokens: 4})
	load(t, url, prompts[:3], loadgen.Options{Concurrency: 1, MaxTokens: 4})
	if hits, served := scrape(t, url, "disaggsim_prefix_cache_hits_total"), scrape(t, url, `disaggsim_requests_total{outcome="served"}`); hits != 3 || served != 11 {
		t.Errorf("%v hits of %v served: want 3 of 11", hits, served)
	}
	_, _, warm := apiSystem(t, digest.TokensSorted, "DISAGGSIM_FAULTS=warm-cache=40")
	if v := scrape(t, warm, "disaggsim_prefix_cache_hits_total"); v != 40 {
		t.Errorf("warm-cache=40: %v hits before any request", v)
	}
}
