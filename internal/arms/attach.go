package arms

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// probeAttached asks every attached server its mode (its probe) and holds
// the answer to the arm: before the client, an answer that shows another
// arm's value, or none, stops the run arm-mode-mismatch naming the URL and
// what it said; after the drain the same censors. Every answer is kept in
// the run (redacted, bounded by the probe's max_bytes).
func (c *controller) probeAttached(ctx context.Context, when string) error {
	if len(c.s.Attach) == 0 {
		return nil
	}
	var rec attachprobe.Record
	if err := rundir.ReadJSON(filepath.Join(c.dir, attachprobe.RecordFile), &rec); err != nil || when == attachprobe.Before {
		rec = attachprobe.Record{}
	}
	rec.Schema = attachprobe.Schema
	if err := os.MkdirAll(filepath.Join(c.dir, "attach"), 0o755); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the attached servers' probes: %v", err))
		return errAbort
	}
	failed := false
	if c.podsBefore == nil {
		c.podsBefore = map[string][]attachprobe.Pod{}
	}
	for _, a := range c.s.Attach {
		pr, r := c.probeOne(ctx, a, when)
		rec.Probes = append(rec.Probes, pr)
		if r != nil {
			c.fail(*r)
			failed = true
		}
	}
	if err := rundir.WriteJSON(filepath.Join(c.dir, attachprobe.RecordFile), rec); err != nil {
		c.fail(reason.New(reason.WriteFailed, "the record of the attached servers' probes %s: %v", attachprobe.RecordFile, err))
		failed = true
	}
	if failed {
		return errAbort
	}
	return nil
}

// probeOne asks one attached server, keeps its answer and says, as a
// reason, why it does not prove the arm (nil when it does).
func (c *controller) probeOne(ctx context.Context, a scenarios.Attached, when string) (attachprobe.Probe, *reason.Reason) {
	var pr attachprobe.Probe
	if r := c.attachDeployment(ctx, a, when, &pr); r != nil {
		pr.Name, pr.When, pr.At, pr.Error = a.Name, when, time.Now().UTC(), r.Detail
		return pr, r
	}
	pods := pr.Pods
	base := c.attachedURL(a.Name)
	url := strings.TrimSuffix(base, "/") + a.Probe.Path
	want := map[string]string{}
	re := regexp.MustCompile(a.Probe.Pattern) // validated
	for _, k := range scenarios.ProbeKeys(re) {
		want[k] = c.s.Arms[c.arm].Env[k]
	}
	pr = attachprobe.Probe{Name: a.Name, When: when, URL: redact.URL(url), At: time.Now().UTC(), Want: want, Pods: pods}
	body, status, err := attachprobe.Get(ctx, url, time.Duration(a.Probe.Timeout), a.Probe.MaxBytes)
	pr.Status = status
	if body != nil {
		pr.File = attachprobe.FileOf(a.Name, when)
		kept := []byte(c.secrets.In(string(body)))
		if werr := os.WriteFile(filepath.Join(c.dir, pr.File), kept, 0o644); werr != nil {
			pr.File = ""
		}
	}
	if err == nil {
		pr.Values, err = attachprobe.Check(body, re, want)
	}
	if err == nil {
		return pr, nil
	}
	pr.Error = c.secrets.In(redact.URL(err.Error()))
	if !errors.As(err, new(*attachprobe.Mismatch)) {
		pr.Error = "gave no answer that shows the arm's mode: " + pr.Error
	}
	r := reason.New(reason.ArmModeMismatch, "attached server %s %s: %s %s", a.Name, phrase(when), pr.URL, pr.Error).At(c.arm, a.Name, 0)
	return pr, &r
}

// phrase is when a probe was taken, in words.
func phrase(when string) string {
	if when == attachprobe.Before {
		return "before the client"
	}
	return "after the drain"
}

// attachedURL is the arm's address of the attached server name.
func (c *controller) attachedURL(name string) string {
	if u, ok := c.attached[name]; ok {
		return u
	}
	return c.s.AttachedURL(name, c.arm)
}
