// Package kubeapi is a small client of the Kubernetes API, JSON over
// HTTPS with the standard library only: what a controller inside a pod
// needs to create, read, list, watch and delete the objects of its own
// namespace, authenticated by its pod's service account.
package kubeapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ServiceAccountDir is where the kubelet mounts a pod's service account
// token, its namespace and the cluster's CA.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// callTimeout bounds every call but a watch: an API server that stops
// answering fails the call, it never hangs the run.
const callTimeout = 30 * time.Second

// Client talks to one API server.
type Client struct {
	// Server is the API server's base URL (https://HOST:PORT).
	Server string
	// TokenFile holds the bearer token, read again for every call: the
	// kubelet rotates a projected token.
	TokenFile string
	HTTP      *http.Client
}

// InCluster is the client of the pod this process runs in: server, or
// when empty the API's Service address the kubelet gives every pod
// (KUBERNETES_SERVICE_HOST and _PORT), with the pod's service account
// token and CA from dir (ServiceAccountDir).
func InCluster(server, dir string) (*Client, error) {
	if server == "" {
		host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
		if host == "" || port == "" {
			return nil, errors.New("no API server address: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (is this a pod?); give one with launcher.kubernetes.api_server")
		}
		server = "https://" + net.JoinHostPort(host, port)
	}
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("API server %q: give an https://HOST:PORT address", server)
	}
	caFile := filepath.Join(dir, "ca.crt")
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("the cluster's CA: %w (the pod needs its service account token mounted)", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, ResponseHeaderTimeout: callTimeout}
	return &Client{Server: strings.TrimSuffix(server, "/"), TokenFile: filepath.Join(dir, "token"), HTTP: &http.Client{Transport: tr}}, nil
}

// Error is a call the API server refused, with its status.
type Error struct {
	Method, Path string
	Code         int
	Reason       string // the Status's reason: NotFound, Forbidden, AlreadyExists...
	Message      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Code, e.Reason, e.Message)
}

// IsNotFound says whether err is the API's 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == http.StatusNotFound
}

// Create posts obj to the collection at path and decodes what was made
// into out (nil: dropped).
func (c *Client) Create(ctx context.Context, path string, obj, out any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, path, body, out)
}

// Get decodes the object at path into out.
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.call(ctx, http.MethodGet, path, nil, out)
}

// List lists the collection at path, only the objects matching the label
// selector when it is not empty.
func (c *Client) List(ctx context.Context, path, selector string) (*List, error) {
	var l List
	return &l, c.call(ctx, http.MethodGet, withQuery(path, url.Values{"labelSelector": {selector}}), nil, &l)
}

// Delete deletes the object at path, its dependents with propagation
// (Foreground, Background or Orphan).
func (c *Client) Delete(ctx context.Context, path, propagation string) error {
	body, _ := json.Marshal(map[string]any{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation}) // a map of strings: no error
	return c.call(ctx, http.MethodDelete, path, body, nil)
}

// Event is one change a watch reports.
type Event struct {
	Type   string `json:"type"` // ADDED, MODIFIED, DELETED, BOOKMARK or ERROR
	Object Object `json:"object"`
}

// Watch streams the changes of the collection at path matching selector
// after resourceVersion to seen, for at most timeout (the server ends the
// watch then). It returns when the watch ends: nil when the server ended
// it, the error of seen or of the stream otherwise.
func (c *Client) Watch(ctx context.Context, path, selector, resourceVersion string, timeout time.Duration, seen func(Event) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout+callTimeout)
	defer cancel()
	q := url.Values{"labelSelector": {selector}, "watch": {"true"}, "resourceVersion": {resourceVersion},
		"timeoutSeconds": {strconv.Itoa(max(int(timeout.Seconds()), 1))}, "allowWatchBookmarks": {"true"}}
	resp, err := c.do(ctx, http.MethodGet, withQuery(path, q), nil)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read only
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var raw struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("watching %s: %w", path, err)
		}
		if raw.Type == "ERROR" { // the object is a Status: most often 410 Gone, the version too old
			var st status
			_ = json.Unmarshal(raw.Object, &st) // no Status: the error says so by its empty reason
			return &Error{Method: http.MethodGet, Path: path, Code: st.Code, Reason: st.Reason, Message: st.Message}
		}
		e := Event{Type: raw.Type}
		if err := json.Unmarshal(raw.Object, &e.Object); err != nil {
			return fmt.Errorf("watching %s: %w", path, err)
		}
		if err := seen(e); err != nil {
			return err
		}
	}
}

func (c *Client) call(ctx context.Context, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read only
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)
	}
	return nil
}

// do sends one request and returns the response of a 2xx status; any
// other status is an *Error with the server's reason.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (*http.Response, error) {
	token, err := os.ReadFile(c.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("the service account token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Server+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer func() { _ = resp.Body.Close() }()                // read only
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20)) // the status says why; without it the code does
	var st status
	_ = json.Unmarshal(data, &st) // not a Status: the code alone says what failed
	if st.Message == "" {
		st.Message = strings.TrimSpace(string(data))
	}
	return nil, &Error{Method: method, Path: path, Code: resp.StatusCode, Reason: st.Reason, Message: st.Message}
}

// status is the API's Status object: why a call failed.
type status struct {
	Code    int    `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func withQuery(path string, q url.Values) string {
	for k, v := range q {
		if len(v) == 1 && v[0] == "" {
			delete(q, k)
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
