package kubeapi

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// apiServer is an httptest TLS server and the service account directory
// (token, CA) a pod of it would have.
func apiServer(t *testing.T, h http.HandlerFunc) (*Client, string) {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := InCluster(srv.URL, dir)
	if err != nil {
		t.Fatal(err)
	}
	return c, dir
}

func TestClientSpeaksTheAPIWithTheToken(t *testing.T) {
	var seen []string
	c, dir := apiServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, fmt.Sprintf("%s %s %s %s", r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), body))
		switch {
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"kind": "Job", "metadata": {"name": "ctx", "uid": "u1"}}`)
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/pods"):
			fmt.Fprint(w, `{"metadata": {"resourceVersion": "42"}, "items": [{"metadata": {"name": "ctx-0-abc", "labels": {"abbench.dev/role": "ctx"}}, "status": {"phase": "Running"}}]}`)
		case r.Method == http.MethodDelete:
			fmt.Fprint(w, `{"kind": "Status"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind": "Status", "code": 404, "reason": "NotFound", "message": "pods \"gone\" not found"}`)
		}
	})
	ctx := context.Background()
	var made Object
	if err := c.Create(ctx, "/apis/batch/v1/namespaces/ns/jobs", map[string]any{"kind": "Job"}, &made); err != nil || made.Metadata.UID != "u1" {
		t.Fatalf("create: %v, %+v", err, made)
	}
	l, err := c.List(ctx, "/api/v1/namespaces/ns/pods", "abbench.dev/token=t1")
	if err != nil || l.Metadata.ResourceVersion != "42" || len(l.Items) != 1 || l.Items[0].Metadata.Labels["abbench.dev/role"] != "ctx" {
		t.Fatalf("list: %v, %+v", err, l)
	}
	// The kubelet rotates the token: every call reads it again.
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("tok-2"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "/apis/batch/v1/namespaces/ns/jobs/ctx", "Foreground"); err != nil {
		t.Fatal(err)
	}
	err = c.Get(ctx, "/api/v1/namespaces/ns/pods/gone", &made)
	if !IsNotFound(err) || !strings.Contains(err.Error(), `404 NotFound: pods "gone" not found`) {
		t.Fatalf("get of a missing pod: %v", err)
	}
	want := []string{
		`POST /apis/batch/v1/namespaces/ns/jobs Bearer tok-1 {"kind":"Job"}`,
		`GET /api/v1/namespaces/ns/pods?labelSelector=abbench.dev%2Ftoken%3Dt1 Bearer tok-1 `,
		`DELETE /apis/batch/v1/namespaces/ns/jobs/ctx Bearer tok-2 {"apiVersion":"v1","kind":"DeleteOptions","propagationPolicy":"Foreground"}`,
		`GET /api/v1/namespaces/ns/pods/gone Bearer tok-2 `,
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestWatchStreamsEventsAndEndsOnAnError(t *testing.T) {
	c, _ := apiServer(t, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("watch") != "true" || q.Get("resourceVersion") != "7" || q.Get("timeoutSeconds") != "2" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		for _, e := range []any{
			map[string]any{"type": "ADDED", "object": map[string]any{"metadata": map[string]any{"name": "p", "uid": "u"}}},
			map[string]any{"type": "MODIFIED", "object": map[string]any{"metadata": map[string]any{"name": "p", "uid": "u"},
				"status": map[string]any{"containerStatuses": []any{map[string]any{"name": "rank", "state": map[string]any{"terminated": map[string]any{"exitCode": 143, "reason": "Error"}}}}}}},
			map[string]any{"type": "ERROR", "object": map[string]any{"kind": "Status", "code": 410, "reason": "Expired", "message": "too old resource version"}},
		} {
			_ = json.NewEncoder(w).Encode(e)
			w.(http.Flusher).Flush()
		}
	})
	var got []string
	err := c.Watch(context.Background(), "/api/v1/namespaces/ns/pods", "a=b", "7", 2*time.Second, func(e Event) error {
		s := e.Type + " " + e.Object.Metadata.Name
		if cs := e.Object.Container("rank"); cs != nil && cs.State.Terminated != nil {
			s += fmt.Sprintf(" exited %d", cs.State.Terminated.ExitCode)
		}
		got = append(got, s)
		return nil
	})
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Code != 410 || apiErr.Reason != "Expired" {
		t.Fatalf("watch ended with %v, want the 410 it was sent", err)
	}
	if strings.Join(got, "; ") != "ADDED p; MODIFIED p exited 143" {
		t.Fatalf("events: %q", got)
	}
}

func TestInClusterNeedsAnAddressAndTheCA(t *testing.T) {
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	if _, err := InCluster("", t.TempDir()); err == nil || !strings.Contains(err.Error(), "launcher.kubernetes.api_server") {
		t.Fatalf("no address: %v", err)
	}
	if _, err := InCluster("http://10.0.0.1:6443", t.TempDir()); err == nil || !strings.Contains(err.Error(), "https://HOST:PORT") {
		t.Fatalf("plain http: %v", err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	if _, err := InCluster("", t.TempDir()); err == nil || !strings.Contains(err.Error(), "service account token mounted") {
		t.Fatalf("no CA: %v", err)
	}
}
