// Package attachprobe reads the mode of a server abbench attaches to
// rather than starts: one HTTP GET of a URL the scenario names (/metrics,
// /v1/models), bounded in time and size, whose answer must show the arm's
// value of every key the probe's pattern names. The answer is kept as it
// came (redacted, bounded), so the evidence says what the server said.
package attachprobe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Schema names RecordFile's format.
const Schema = "abbench-attach-probes-v1"

// RecordFile lists a run's probes, relative to the run directory; each
// answer is beside it (Probe.File).
const RecordFile = "attach/probes.json"

// When a probe was taken.
const (
	Before = "before" // before any client traffic
	After  = "after"  // after the client's end and the drain
)

// Record is every probe of a run.
type Record struct {
	Schema string  `json:"schema"`
	Probes []Probe `json:"probes"`
}

// Probe is one attached server asked once.
type Probe struct {
	Name   string    `json:"name"`
	When   string    `json:"when"`
	URL    string    `json:"url"`
	At     time.Time `json:"at"`
	Status int       `json:"status,omitempty"`
	// File is the answer, relative to the run directory ("" when none).
	File string `json:"file,omitempty"`
	// Values are what the answer said of each key the pattern names.
	Values map[string]string `json:"values,omitempty"`
	// Want are the arm's values of those keys.
	Want  map[string]string `json:"want"`
	Error string            `json:"error,omitempty"`
	// Pods are an attached Deployment's pods when it was probed.
	Pods []Pod `json:"pods,omitempty"`
}

// FileOf is where the answer of name probed when is kept.
func FileOf(name, when string) string {
	return fmt.Sprintf("attach/%s-%s.body", name, when)
}

// ErrTooLarge is an answer past the probe's byte cap.
var ErrTooLarge = errors.New("the answer is larger than the probe's max_bytes")

// ErrStatus is an answer other than 200 OK.
var ErrStatus = errors.New("the server did not answer 200 OK")

// noRedirects answers a redirect as it came (a 3xx, not 200 OK): the mode
// must be the answer of the server the arm names, never of another address
// that server sends the probe to.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// Get asks url within timeout (and ctx) and reads at most maxBytes of its
// answer. The status is returned with an error too, where there was one.
func Get(ctx context.Context, url string, timeout time.Duration, maxBytes int) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4, application/json;q=0.9, */*;q=0.1")
	resp, err := noRedirects.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = resp.Body.Close() }() // read whole, or refused
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxBytes)+1))
	switch {
	case err != nil:
		return nil, resp.StatusCode, fmt.Errorf("reading the answer: %w", err)
	case len(body) > maxBytes:
		return nil, resp.StatusCode, fmt.Errorf("%w (%d bytes)", ErrTooLarge, maxBytes)
	case resp.StatusCode != http.StatusOK:
		return body, resp.StatusCode, fmt.Errorf("%w: %s", ErrStatus, resp.Status)
	}
	return body, resp.StatusCode, nil
}

// Mismatch is an answer that does not show the arm's values: Got holds
// what it showed of each key (none when the pattern matched nothing).
type Mismatch struct {
	Got, Want map[string]string
}

func (m *Mismatch) Error() string {
	if m.Got == nil {
		return "answered nothing the probe's pattern matches, so nothing shows the arm's mode"
	}
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(m.Want)) {
		if m.Got[k] != m.Want[k] {
			diffs = append(diffs, fmt.Sprintf("%s=%q where the arm sets %q", k, m.Got[k], m.Want[k]))
		}
	}
	return "answered " + strings.Join(diffs, ", ")
}

// Check holds an answer to the arm: the first match of re must show,
// in the group named after each key of want, that key's value. It
// returns what the answer showed, and a *Mismatch when it is not the arm's.
func Check(body []byte, re *regexp.Regexp, want map[string]string) (map[string]string, error) {
	m := re.FindSubmatch(body)
	if m == nil {
		return nil, &Mismatch{Want: want}
	}
	got := map[string]string{}
	for i, name := range re.SubexpNames() {
		if _, ok := want[name]; ok && i > 0 {
			got[name] = string(m[i])
		}
	}
	for k, v := range want {
		if got[k] != v {
			return got, &Mismatch{Got: got, Want: want}
		}
	}
	return got, nil
}
