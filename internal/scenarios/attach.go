package scenarios

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Attached is a server abbench does not start but attaches to, one per
// arm: two Deployments a platform team already runs, or two servers on
// hosts of their own. The client reaches the arm's one through
// {{.Attached "NAME"}}; before any client traffic the probe must read,
// from the server's own answer, the arm's value of every key it names.
type Attached struct {
	Name string `yaml:"name" json:"name"`
	// Arms is where each arm's server is: a URL, or a Kubernetes
	// Deployment whose Ready pods are resolved to their addresses.
	Arms  map[string]AttachedArm `yaml:"arms" json:"arms"`
	Probe *AttachProbe           `yaml:"probe" json:"probe"`
}

// AttachedArm is one arm's server: exactly one of URL and Kubernetes.
type AttachedArm struct {
	// URL is the server's base URL, http:// or https://, as the client
	// reaches it (a pod's or a NodePort's address).
	URL        string              `yaml:"url" json:"url"`
	Kubernetes *AttachedDeployment `yaml:"kubernetes" json:"kubernetes,omitempty"`
}

// AttachedDeployment names an existing Deployment; its Ready pods' IPs are
// the server's address (a ClusterIP need not route where no kube-proxy
// runs), the first pod's is the URL.
type AttachedDeployment struct {
	Namespace  string `yaml:"namespace" json:"namespace"`
	Deployment string `yaml:"deployment" json:"deployment"`
	Port       int    `yaml:"port" json:"port"`
	// Scheme is http (default) or https.
	Scheme string `yaml:"scheme" json:"scheme,omitempty"`
}

// AttachProbe reads the arm from the attached server's own answer: a GET
// of Path below the arm's URL, within Timeout and MaxBytes, whose body must
// match Pattern with a group named after each arm key it proves, holding
// the arm's value.
type AttachProbe struct {
	Path     string   `yaml:"path" json:"path"`
	Pattern  string   `yaml:"pattern" json:"pattern"`
	Timeout  Duration `yaml:"timeout" json:"timeout"`
	MaxBytes int      `yaml:"max_bytes" json:"max_bytes"`
}

// Probe bounds by default: an engine's /metrics or /v1/models is well
// under a MiB, and answers in well under a second.
const (
	DefaultProbeTimeout  = Duration(10 * time.Second)
	DefaultProbeMaxBytes = 1 << 20
	MaxProbeBytes        = 16 << 20
)

// AttachedURL is arm's URL of the attached server name as the scenario
// gives it ("" for a Deployment, resolved when the run starts).
func (s *Scenario) AttachedURL(name, arm string) string {
	for _, a := range s.Attach {
		if a.Name == name {
			return a.Arms[arm].URL
		}
	}
	return ""
}

// defaultAttach fills in the probe's bounds.
func (s *Scenario) defaultAttach() {
	for i := range s.Attach {
		pr := s.Attach[i].Probe
		if pr == nil {
			continue
		}
		if pr.Timeout == 0 {
			pr.Timeout = DefaultProbeTimeout
		}
		if pr.MaxBytes == 0 {
			pr.MaxBytes = DefaultProbeMaxBytes
		}
		for arm, a := range s.Attach[i].Arms {
			if a.Kubernetes != nil && a.Kubernetes.Scheme == "" {
				a.Kubernetes.Scheme = "http"
				s.Attach[i].Arms[arm] = a
			}
		}
	}
}

// attach validates the attached servers: unique names that are no role's,
// every arm and only arms, each one place, and a probe that proves an
// arm key: an attached server whose mode nothing proves is refused.
func (v *validator) attach() {
	seen := map[string]bool{}
	for i, a := range v.s.Attach {
		ap := p("attach", i)
		switch {
		case !namePattern.MatchString(a.Name):
			v.at(append(ap, "name"), "attach name %q: use lower-case letters, digits, '-' and '_'", a.Name)
		case seen[a.Name] || v.s.Role(a.Name) != nil:
			v.at(append(ap, "name"), "attach name %q is taken by another role or attached server", a.Name)
		}
		seen[a.Name] = true
		v.attachArms(ap, a)
		v.attachProbe(ap, a)
	}
}

func (v *validator) attachArms(ap []any, a Attached) {
	for name := range a.Arms {
		if _, ok := v.s.Arms[name]; !ok {
			v.atKey(append(ap, "arms", name), "attach %q: %q is not an arm (arms: %s)", a.Name, name, strings.Join(v.s.ArmOrder, ", "))
		}
	}
	for _, arm := range v.s.ArmOrder {
		at, ok := a.Arms[arm]
		path := append(slices.Clone(ap), "arms", arm)
		switch {
		case !ok:
			v.at(append(ap, "arms"), "attach %q gives no server for arm %q: give each arm its own, {url: http://HOST:PORT} or {kubernetes: {namespace, deployment, port}}", a.Name, arm)
		case (at.URL == "") == (at.Kubernetes == nil):
			v.at(path, "attach %q, arm %q: give exactly one of url and kubernetes", a.Name, arm)
		case at.URL != "":
			if u, err := url.Parse(at.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				v.at(append(path, "url"), "attach %q, arm %q: url %q: an http:// or https:// base URL with a host and no user", a.Name, arm, at.URL)
			}
		default:
			v.attachDeployment(append(path, "kubernetes"), a.Name, arm, at.Kubernetes)
		}
	}
}

func (v *validator) attachDeployment(path []any, name, arm string, d *AttachedDeployment) {
	if !dnsLabel.MatchString(d.Namespace) || !dnsLabel.MatchString(d.Deployment) {
		v.at(path, "attach %q, arm %q: namespace %q and deployment %q must be Kubernetes names (lower-case letters, digits, '-')", name, arm, d.Namespace, d.Deployment)
	}
	if d.Port < 1 || d.Port > 65535 {
		v.at(append(path, "port"), "attach %q, arm %q: port %d: the pods' container port the server listens on, 1 to 65535", name, arm, d.Port)
	}
	if d.Scheme != "http" && d.Scheme != "https" {
		v.at(append(path, "scheme"), "attach %q, arm %q: scheme %q: http or https", name, arm, d.Scheme)
	}
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (v *validator) attachProbe(ap []any, a Attached) {
	pr := a.Probe
	if pr == nil {
		v.at(ap, "attach %q has no probe: nothing would prove which arm the server runs; give probe: {path: /metrics, pattern: 'KEY=(?P<KEY>\\S+)'} with a group named after each arm key the server reports", a.Name)
		return
	}
	pp := append(slices.Clone(ap), "probe")
	if !strings.HasPrefix(pr.Path, "/") {
		v.at(append(pp, "path"), "attach %q: probe path %q: a path below the server's URL, such as /metrics or /v1/models", a.Name, pr.Path)
	}
	if pr.Timeout <= 0 || pr.Timeout > Duration(time.Hour) {
		v.at(append(pp, "timeout"), "attach %q: probe timeout %v: above 0 and at most 1h", a.Name, time.Duration(pr.Timeout))
	}
	if pr.MaxBytes < 1 || pr.MaxBytes > MaxProbeBytes {
		v.at(append(pp, "max_bytes"), "attach %q: probe max_bytes %d: 1 to %d", a.Name, pr.MaxBytes, MaxProbeBytes)
	}
	re, err := regexp.Compile(pr.Pattern)
	if err != nil {
		v.at(append(pp, "pattern"), "attach %q: probe pattern: %v", a.Name, err)
		return
	}
	keys := ProbeKeys(re)
	for _, g := range re.SubexpNames()[1:] {
		if g != "" && !v.isArmKey(g) {
			v.at(append(pp, "pattern"), "attach %q: probe group %q is not an arm key: name each group after the arm key whose value the server reports", a.Name, g)
		}
	}
	if len(keys) == 0 {
		v.at(append(pp, "pattern"), "attach %q: the probe pattern has no group named after an arm key, so it proves nothing: (?P<KEY>...) for each key the server reports", a.Name)
	}
}

// isArmKey says whether key is an arm's environment key.
func (v *validator) isArmKey(key string) bool {
	for _, arm := range v.s.Arms {
		if _, ok := arm.Env[key]; ok {
			return true
		}
	}
	return false
}

// ProbeKeys are the named groups of a probe's pattern, in order.
func ProbeKeys(re *regexp.Regexp) []string {
	var keys []string
	for _, g := range re.SubexpNames()[1:] {
		if g != "" {
			keys = append(keys, g)
		}
	}
	return keys
}

// Attached is the arm's address of the attached server name,
// {{.Attached "server"}}: the URL the scenario gives, or the one the run
// resolved a Deployment to.
func (d TemplateData) Attached(name string) (string, error) {
	u, ok := d.attached[name]
	if !ok {
		return "", fmt.Errorf("no attached server %q (attach: names those there are)", name)
	}
	return u, nil
}

// attachedOf is every attached server's address for arm: resolved where
// given, else the scenario's URL.
func (s *Scenario) attachedOf(arm string, resolved map[string]string) map[string]string {
	if len(s.Attach) == 0 {
		return nil
	}
	m := make(map[string]string, len(s.Attach))
	for _, a := range s.Attach {
		m[a.Name] = a.Arms[arm].URL
		if u, ok := resolved[a.Name]; ok {
			m[a.Name] = u
		}
	}
	return m
}

// attachShape is s.Attach with the arms' places left out: where each arm's
// server is is the declared difference, as the arms' values are.
func (s *Scenario) attachShape() []Attached {
	if s.Attach == nil {
		return nil
	}
	out := make([]Attached, len(s.Attach))
	for i, a := range s.Attach {
		out[i] = a
		out[i].Arms = make(map[string]AttachedArm, len(a.Arms))
		for arm, at := range a.Arms {
			shape := AttachedArm{}
			if at.Kubernetes != nil {
				shape.Kubernetes = &AttachedDeployment{}
			}
			out[i].Arms[arm] = shape
		}
	}
	return out
}
