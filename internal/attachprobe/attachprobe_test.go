package attachprobe

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"
)

// Get reads the answer within its bounds: one larger than the cap, slower
// than the deadline or other than 200 OK gives no proof, each with an
// error that says which.
func TestGetIsBounded(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("cfg{mode=\"1\"} 1\n")) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) { w.Write(bytes.Repeat([]byte("x"), 4096)) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	if body, status, err := Get(ctx, srv.URL+"/metrics", time.Second, 1024); err != nil || status != 200 || string(body) != "cfg{mode=\"1\"} 1\n" {
		t.Errorf("got %q %d %v", body, status, err)
	}
	if _, _, err := Get(ctx, srv.URL+"/huge", time.Second, 1024); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 4 KiB answer under a 1 KiB cap: %v", err)
	}
	start := time.Now()
	if _, _, err := Get(ctx, srv.URL+"/slow", 100*time.Millisecond, 1024); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("a server slower than the deadline: %v after %v", err, time.Since(start))
	}
	if body, status, err := Get(ctx, srv.URL+"/busy", time.Second, 1024); !errors.Is(err, ErrStatus) || status != 503 || len(body) == 0 {
		t.Errorf("a 503: %q %d %v (its answer is kept, for the evidence)", body, status, err)
	}
}

// Check holds the answer to the arm's values: the other arm's value, or
// nothing the pattern matches, is a Mismatch saying what it showed.
func TestCheckHoldsTheAnswerToTheArm(t *testing.T) {
	re := regexp.MustCompile(`cfg\{mode="(?P<MODE>[^"]*)"\}`)
	want := map[string]string{"MODE": "1"}
	if got, err := Check([]byte("# x\ncfg{mode=\"1\"} 1\n"), re, want); err != nil || got["MODE"] != "1" {
		t.Errorf("the arm's value: %v %v", got, err)
	}
	var m *Mismatch
	got, err := Check([]byte("cfg{mode=\"0\"} 1\n"), re, want)
	if !errors.As(err, &m) || got["MODE"] != "0" || err.Error() != `answered MODE="0" where the arm sets "1"` {
		t.Errorf("the other arm's value: %v %v", got, err)
	}
	if got, err := Check([]byte("other 1\n"), re, want); !errors.As(err, &m) || got != nil || m.Got != nil {
		t.Errorf("no mode at all: %v %v", got, err)
	}
}

// A server that redirects the probe elsewhere does not prove its mode by
// the other address's answer: the redirect is the answer, not 200 OK.
func TestAProbeIsNotRedirected(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("cfg{mode=\"1\"} 1\n"))
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/metrics", http.StatusFound)
	}))
	defer srv.Close()
	body, status, err := Get(context.Background(), srv.URL+"/metrics", 5*time.Second, 1<<20)
	if !errors.Is(err, ErrStatus) || status != http.StatusFound || bytes.Contains(body, []byte("mode")) {
		t.Fatalf("a redirected probe: status %d, err %v, body %q; want the 302 refused", status, err, body)
	}
}
