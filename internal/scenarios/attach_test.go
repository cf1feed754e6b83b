package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// attachedBase is openaiBase whose client reaches an attached server, one
// per arm, rather than a role the run starts.
var attachedBase = strings.Replace(strings.Replace(openaiBase, `url: 'http://127.0.0.1:{{.Port "http"}}'`, `url: '{{.Attached "srv"}}'`, 1),
	"roles:\n", `attach:
  - name: srv
    arms:
      fast: {url: 'http://10.0.0.1:8000'}
      slow: {kubernetes: {namespace: team, deployment: srv-slow, port: 8000}}
    probe: {path: /metrics, pattern: 'mode="(?P<MODE>\d)"'}
roles:
`, 1)

// An attached server loads with its probe's bounds and a Deployment's
// scheme filled in; the client's template names the arm's address, the
// same in validation for every arm (the address is the declared
// difference) and the arm's own at run time.
func TestAttachLoads(t *testing.T) {
	s, err := load(t, attachedBase)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Attach[0]
	if a.Probe.Timeout != DefaultProbeTimeout || a.Probe.MaxBytes != DefaultProbeMaxBytes || a.Arms["slow"].Kubernetes.Scheme != "http" {
		t.Errorf("attach %+v: want the probe's default bounds and scheme http", a)
	}
	for arm, want := range map[string]string{"fast": "http://10.0.0.1:8000", "slow": "http://10.1.2.3:8000"} {
		d := s.TemplateData(Place{Arm: arm, Attached: map[string]string{"srv": "http://10.1.2.3:8000"}})
		if arm == "fast" {
			d = s.TemplateData(Place{Arm: arm})
		}
		if got, err := Expand(`{{.Attached "srv"}}`, d); err != nil || got != want {
			t.Errorf("arm %s: %q (%v), want %q", arm, got, err, want)
		}
	}
}

// Where each arm's server is, is the declared difference: the matched
// digest does not hold it, but it holds the probe, the attached server
// and whether an arm is a URL or a Deployment.
func TestAttachMatchedDigest(t *testing.T) {
	s, err := load(t, attachedBase)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := load(t, strings.Replace(attachedBase, "10.0.0.1:8000", "10.9.9.9:9000", 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.MatchedDigest() != moved.MatchedDigest() {
		t.Error("another URL of an arm's server changed the matched digest")
	}
	probe, err := load(t, strings.Replace(attachedBase, "path: /metrics", "path: /v1/models", 1))
	if err != nil {
		t.Fatal(err)
	}
	if s.MatchedDigest() == probe.MatchedDigest() {
		t.Error("another probe kept the matched digest")
	}
	plain, err := load(t, openaiBase)
	if err != nil {
		t.Fatal(err)
	}
	if plain.MatchedDigest() == s.MatchedDigest() || strings.Contains(string(plain.Canonical()), "attach") {
		t.Error("a scenario without attach: must keep the digest it had")
	}
}

// Validation refuses an attached server nothing proves, and any place
// that is not one: FILE:LINE, at the key at fault.
func TestAttachRejects(t *testing.T) {
	probe := `    probe: {path: /metrics, pattern: 'mode="(?P<MODE>\d)"'}` + "\n"
	cases := map[string]struct{ from, to, want string }{
		"no probe":        {probe, "", `attach "srv" has no probe: nothing would prove which arm the server runs`},
		"no arm key":      {`(?P<MODE>\d)`, `(?P<mode>\d)`, `probe group "mode" is not an arm key`},
		"no group":        {`(?P<MODE>\d)`, `\d`, `has no group named after an arm key, so it proves nothing`},
		"bad pattern":     {`(?P<MODE>\d)`, `(?P<MODE>\d`, `probe pattern: error parsing regexp`},
		"path":            {`path: /metrics`, `path: metrics`, `probe path "metrics": a path below the server's URL`},
		"cap":             {`path: /metrics`, `path: /metrics, max_bytes: 100000000`, `probe max_bytes 100000000: 1 to 16777216`},
		"missing arm":     {"      fast: {url: 'http://10.0.0.1:8000'}\n", "", `attach "srv" gives no server for arm "fast"`},
		"unknown arm":     {"      fast:", "      fsat:", `"fsat" is not an arm`},
		"url":             {`http://10.0.0.1:8000`, `ftp://10.0.0.1`, `url "ftp://10.0.0.1": an http:// or https:// base URL`},
		"both":            {`{url: 'http://10.0.0.1:8000'}`, `{url: 'http://10.0.0.1:8000', kubernetes: {namespace: a, deployment: b, port: 1}}`, `give exactly one of url and kubernetes`},
		"port":            {`port: 8000`, `port: 0`, `port 0: the pods' container port`},
		"deployment name": {`deployment: srv-slow`, `deployment: Srv`, `must be Kubernetes names`},
		"role's name":     {`  - name: srv`, `  - name: client`, `attach name "client" is taken`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			y := strings.Replace(attachedBase, c.from, c.to, 1)
			if y == attachedBase {
				t.Fatalf("%q is not in the scenario", c.from)
			}
			_, err := load(t, y)
			var es Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if es[0].Line < 7 {
				t.Errorf("%v: want the line of the attached server", es[0])
			}
		})
	}
}
