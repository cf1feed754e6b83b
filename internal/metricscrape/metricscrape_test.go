package metricscrape

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scrape keeps the body as answered and asks for the text format; one
// that answers an error status, more than MaxBody or nothing at all is
// recorded with why, and no body.
func TestGetKeepsTheBodyOrSaysWhy(t *testing.T) {
	mux := http.NewServeMux()
	var accept string
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		w.Write([]byte("m 1\n"))
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		chunk := bytes.Repeat([]byte("# padding\n"), 1<<16)
		for range MaxBody/len(chunk) + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	s := Get(context.Background(), dir, "server", 1, Before, srv.URL+"/metrics")
	if body, err := os.ReadFile(filepath.Join(dir, s.File)); err != nil || string(body) != "m 1\n" || s.Error != "" || s.File != "metrics/server-1-before.prom" || accept != "text/plain;version=0.0.4" {
		t.Errorf("scrape %+v: body %q (%v), accept %q", s, body, err, accept)
	}
	for path, want := range map[string]string{"/busy": "answered 503 Service Unavailable", "/huge": ErrTooLarge.Error()} {
		s := Get(context.Background(), dir, "server", 0, After, srv.URL+path)
		if s.File != "" || !strings.Contains(s.Error, want) {
			t.Errorf("%s: %+v, want %q", path, s, want)
		}
	}
	srv.Close()
	if s := Get(context.Background(), dir, "server", 0, After, srv.URL+"/metrics"); s.File != "" || !strings.Contains(s.Error, "connection refused") {
		t.Errorf("a server gone: %+v", s)
	}
}
