// Package metricscrape scrapes a server's Prometheus endpoint around a
// run's measured phase, bounded in time and size, and keeps what it
// answered as it answered it, so that the evidence read from the scrape
// is read again from the same bytes when a bundle is verified.
package metricscrape

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Schema names RecordFile's format.
const Schema = "abbench-metrics-scrapes-v1"

// RecordFile lists a run's scrapes, relative to the run directory; each
// body is beside it (File).
const RecordFile = "metrics/scrapes.json"

// Limits of one scrape: an engine's /metrics is tens to hundreds of KiB.
const (
	Timeout = 10 * time.Second
	MaxBody = 16 << 20
)

// When a scrape was taken.
const (
	Before = "before" // once the ranks are ready, before the client starts
	After  = "after"  // after the client's end and the drain
)

// Record is every scrape of a run.
type Record struct {
	Schema  string   `json:"schema"`
	Scrapes []Scrape `json:"scrapes"`
}

// Scrape is one rank's endpoint scraped once.
type Scrape struct {
	Role string    `json:"role"`
	Rank int       `json:"rank"`
	When string    `json:"when"`
	URL  string    `json:"url"`
	At   time.Time `json:"at"`
	// File is the body, relative to the run directory; "" when there is
	// none (Error says why).
	File  string `json:"file,omitempty"`
	Error string `json:"error,omitempty"`
}

// FileOf is where the body of role's rank scraped when is kept.
func FileOf(role string, rank int, when string) string {
	return fmt.Sprintf("metrics/%s-%d-%s.prom", role, rank, when)
}

// Get scrapes url within Timeout (and ctx), writing its body, at most
// MaxBody, to dir/FileOf(...). s says where it went or why it failed.
func Get(ctx context.Context, dir, role string, rank int, when, url string) Scrape {
	s := Scrape{Role: role, Rank: rank, When: when, URL: url, At: time.Now().UTC()}
	body, err := get(ctx, url)
	if err == nil {
		rel := FileOf(role, rank, when)
		if err = os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err == nil {
			err = os.WriteFile(filepath.Join(dir, rel), body, 0o644)
		}
		if err == nil {
			s.File = rel
		}
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s
}

// ErrTooLarge is a body past MaxBody.
var ErrTooLarge = errors.New("the endpoint's answer is larger than 16 MiB")

func get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	// The text format: an endpoint that also speaks OpenMetrics or
	// protocol buffers answers in the one abbench reads.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }() // read whole, or refused
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	if len(body) > MaxBody {
		return nil, ErrTooLarge
	}
	return body, nil
}
