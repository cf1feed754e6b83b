package scenarios

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/lazyregexp"
	"github.com/abbench/abbench/internal/redact"
)

// MaxRanks bounds a role's rank count.
const MaxRanks = 4096

var (
	namePattern   = lazyregexp.New(`^[a-z0-9][a-z0-9_-]{0,62}$`)
	envKeyPattern = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

type validator struct {
	s       *Scenario
	file    string
	root    *yaml.Node
	errs    Errors
	prompts *digest.Digest // given instead of reading the prompts file
	// chatOnly is the first request of a conversation dataset that only a
	// chat endpoint can send (several messages, or a system prompt), 0: none.
	chatOnly int
	// conversations says the workload is a conversation dataset.
	conversations bool
}

// at records a problem at the value of path.
func (v *validator) at(path []any, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.file, Line: lookup(v.root, path...).Line, Msg: fmt.Sprintf(format, args...)})
}

// atKey records a problem at the key of path (for a key that should not be there).
func (v *validator) atKey(path []any, format string, args ...any) {
	v.errs = append(v.errs, &Error{File: v.file, Line: keyLine(v.root, path...), Msg: fmt.Sprintf(format, args...)})
}

func p(parts ...any) []any { return parts }

func (v *validator) run() {
	s := v.s
	if s.Name == "" {
		v.at(nil, "missing name: give the experiment a name such as terminal-agreement")
	} else if !namePattern.MatchString(s.Name) {
		v.at(p("name"), "name %q: use lower-case letters, digits, '-' and '_' (it names directories)", s.Name)
	}
	v.arms()
	v.env(p("env"), s.Env, true)
	v.workload()
	v.matrix()
	v.roles()
	v.attach()
	v.evidence()
	v.armEnvCovered()
	v.differingKeysProven()
	v.acceptance()
	v.metrics()
	v.deadlines()
	v.hooks()
	if !(s.NoiseThreshold > 0 && s.NoiseThreshold <= 100) { // NaN too: no JSON, no matched digest
		v.at(p("noise_threshold"), "noise_threshold %v: a percentage above 0 and at most 100", s.NoiseThreshold)
	}
	v.launcher()
	v.telemetry()
	v.workloadLiterals()
}

// warn records a problem that does not invalidate the scenario.
func (v *validator) warn(path []any, format string, args ...any) {
	v.s.Warnings = append(v.s.Warnings, &Error{File: v.file, Line: lookup(v.root, path...).Line, Msg: "warning: " + fmt.Sprintf(format, args...)})
}

func (v *validator) arms() {
	s := v.s
	if len(s.Arms) < 2 {
		v.atKey(p("arms"), "%d arm(s): an A/B needs at least two arms that differ in their env", len(s.Arms))
	}
	var firstKeys []string
	first := ""
	seen := map[string]string{}
	for _, name := range s.ArmOrder {
		arm := s.Arms[name]
		if !namePattern.MatchString(name) {
			v.atKey(p("arms", name), "arm name %q: use lower-case letters, digits, '-' and '_'", name)
		}
		v.build(name, arm)
		if len(arm.Env) == 0 {
			if !s.HasBuilds() {
				v.at(p("arms", name), "arm %q declares no env: arms are defined by the environment keys that differ between them (or by their builds: build: {binary: PATH})", name)
			}
			continue
		}
		keys := slices.Sorted(maps.Keys(arm.Env))
		for _, k := range keys {
			kp := p("arms", name, "env", k)
			if !envKeyPattern.MatchString(k) {
				v.atKey(kp, "arm %q: %q is not an environment variable name", name, k)
			}
			v.reservedKey(kp, k)
			if redact.Secret(k) {
				v.atKey(kp, "arm %q: %s names a secret, but arm values are written in the scenario and every record in clear: give the secret to the role that needs it with env: {%s: '{{env \"%s\"}}'} (it is then redacted everywhere)", name, k, k, k)
			}
			if strings.ContainsRune(arm.Env[k], 0) {
				v.at(kp, "arm %q: the value of %s holds a NUL byte, which no environment can carry", name, k)
			}
		}
		if firstKeys == nil {
			firstKeys, first = keys, name
		} else if !slices.Equal(keys, firstKeys) {
			v.keysDiffer(name, keys, first, firstKeys)
		}
		sig := envSignature(arm.Env)
		if arm.Build != nil {
			sig += "\x00" + arm.Build.Binary
		}
		if other, dup := seen[sig]; dup {
			v.at(p("arms", name, "env"), "arm %q has the same env as arm %q: the arms would not differ", name, other)
		}
		seen[sig] = name
	}
	if s.Baseline == "" {
		v.at(nil, "missing baseline: name the arm the others are compared with")
	} else if _, ok := s.Arms[s.Baseline]; !ok {
		v.at(p("baseline"), "baseline %q is not an arm (arms: %s)", s.Baseline, strings.Join(s.ArmOrder, ", "))
	}
}

// build checks an arm's build: declared by every arm or none, naming a
// binary; whether it exists is the run's concern (compare and replay read
// scenarios whose binaries are elsewhere).
func (v *validator) build(name string, arm Arm) {
	switch {
	case arm.Build == nil && v.s.HasBuilds():
		v.at(p("arms", name), "arm %q declares no build, but other arms do: in an A/B of builds every arm declares its build: {binary: PATH}", name)
	case arm.Build != nil && arm.Build.Binary == "":
		v.at(p("arms", name, "build"), "arm %q: build needs binary: the executable this arm's roles run as {{.Build}}", name)
	case arm.Build != nil:
		if st, err := os.Stat(v.s.Path(arm.Build.Binary)); err != nil || !st.Mode().IsRegular() {
			v.warn(p("arms", name, "build", "binary"), "arm %q: build binary %s is not a file here (yet): a run fails until it is built", name, v.s.Path(arm.Build.Binary))
		}
	}
}

func envSignature(env map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(env)) {
		fmt.Fprintf(&b, "%q=%q;", k, env[k])
	}
	return b.String()
}

// env checks a constant environment: valid names, no arm key, valid templates.
func (v *validator) env(path []any, env map[string]string, templates bool) {
	armKeys := v.s.ArmKeys()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		kp := append(slices.Clone(path), k)
		if !envKeyPattern.MatchString(k) {
			v.atKey(kp, "%q is not an environment variable name", k)
		}
		if slices.Contains(armKeys, k) {
			v.atKey(kp, "%s is an arm key: it may only be set by the arms, or the arms would not be what differs", k)
		}
		v.reservedKey(kp, k)
		if strings.ContainsRune(env[k], 0) {
			v.at(kp, "the value of %s holds a NUL byte, which no environment can carry", k)
		}
		if templates {
			v.template(kp, env[k])
		}
	}
}

// reservedKey refuses keys abbench sets itself on every rank: its own
// ABBENCH_ variables (the token, the coordination directory, the arm keys)
// and PATH (abbench's directory first, then the inherited PATH).
func (v *validator) reservedKey(path []any, k string) {
	switch {
	case strings.HasPrefix(strings.ToUpper(k), "ABBENCH_"):
		v.atKey(path, "%s is reserved: abbench sets its ABBENCH_ variables on every rank itself", k)
	case k == "PATH":
		v.atKey(path, "PATH is reserved: abbench gives every rank its own directory first, then the PATH it inherited; name a command by its absolute path instead")
	}
}

// template checks a template: it expands, and expands alike under every
// arm (see armTemplate).
func (v *validator) template(path []any, text string) {
	if v.templateSyntax(path, text) {
		v.armTemplate(path, text)
	}
}

// templateSyntax checks that a template expands over the sample data,
// saying what it may use where it does not; it reports whether it does.
func (v *validator) templateSyntax(path []any, text string) bool {
	if _, err := Expand(text, v.s.sampleData()); err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		v.at(path, "template %q: %s (available: %s)", text, msg, templateFields)
		return false
	}
	if strings.Contains(text, ".Build") && !v.s.HasBuilds() {
		v.at(path, "template %q: {{.Build}} is an arm's build, but no arm declares one (arms: NAME: build: {binary: PATH})", text)
		return false
	}
	return true
}

func (v *validator) regexp(path []any, pattern string, groups ...string) *regexp.Regexp {
	re, err := regexp.Compile(pattern)
	if err != nil {
		v.at(path, "pattern does not compile: %v", err)
		return nil
	}
	names := re.SubexpNames()
	var missing []string
	for _, g := range groups {
		if !slices.Contains(names, g) {
			missing = append(missing, "(?P<"+g+">...)")
		}
	}
	if len(missing) > 0 {
		v.at(path, "pattern lacks the named group(s) %s", strings.Join(missing, ", "))
	}
	return re
}

// deadlines checks every deadline; one the file sets is read back from
// it, as ApplyDefaults replaced a zero one.
func (v *validator) deadlines() {
	for _, d := range v.s.Deadlines.fields() {
		val := *d.val
		if n := child(child(v.root, "deadlines"), d.name); n != nil {
			val = 0
			_ = n.Decode(&val) // it decoded once already
		}
		if val <= 0 || time.Duration(val) > MaxDeadline {
			v.at(p("deadlines", d.name), "deadline %s %s: must be above 0 and at most %s", d.name, val, MaxDeadline)
		}
	}
}

func (v *validator) launcher() {
	l := v.s.Launcher
	if l.Local.CPUs != "" && !regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*$`).MatchString(l.Local.CPUs) {
		v.at(p("launcher", "local", "cpus"), "cpus %q: a CPU list such as 0-3 or 0,2", l.Local.CPUs)
	}
	if l.Local.CPUs != "" && l.Local.ConcurrentSafe {
		v.at(p("launcher", "local", "concurrent_safe"), "concurrent_safe with cpus %q: every run is pinned to those CPUs, so runs at the same time would share them (leave one out)", l.Local.CPUs)
	}
	if k := l.Kubernetes.Ranks; k != "" && k != "kubernetes" && k != "local" {
		v.at(p("launcher", "kubernetes", "ranks"), "ranks %q: kubernetes (a pod per rank) or local (every rank in the controller's pod)", k)
	}
	if a := l.Kubernetes.APIServer; a != "" && !regexp.MustCompile(`^https://[^/\s]+$`).MatchString(a) {
		v.at(p("launcher", "kubernetes", "api_server"), "api_server %q: the API server's https://HOST:PORT", a)
	}
	v.kubernetesTenant(l.Kubernetes)
	if l.Slurm.Nodes < 0 {
		v.at(p("launcher", "slurm", "nodes"), "nodes %d: must be at least 1", l.Slurm.Nodes)
	}
	if l.Slurm.TasksPerNode < 0 {
		v.at(p("launcher", "slurm", "tasks_per_node"), "tasks_per_node %d: must be at least 1", l.Slurm.TasksPerNode)
	}
	sliced := 0
	for i, r := range v.s.Roles {
		if r.Slurm.Nodes < 0 || r.Slurm.GPUsPerTask < 0 {
			v.at(p("roles", i, "slurm"), "role %q: slurm nodes and gpus_per_task must not be negative", r.Name)
		}
		if r.Slurm.Nodes > r.Ranks {
			v.at(p("roles", i, "slurm", "nodes"), "role %q asks %d nodes for %d rank(s)", r.Name, r.Slurm.Nodes, r.Ranks)
		}
		sliced += r.Slurm.Nodes
	}
	if l.Slurm.Nodes > 0 && sliced > l.Slurm.Nodes {
		v.at(p("launcher", "slurm", "nodes"), "roles take %d nodes of their own, but the allocation has %d", sliced, l.Slurm.Nodes)
	}
}

// kubernetesTenant holds the tenant keys to what the API server takes:
// a namespace and an account that are DNS labels, a claim path that is
// absolute, a uid that is not root's (Pod Security "restricted").
func (v *validator) kubernetesTenant(k KubernetesOptions) {
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	for _, f := range []struct{ key, val string }{{"namespace", k.Namespace}, {"service_account", k.ServiceAccount}, {"claim", k.Claim}} {
		if f.val != "" && !label.MatchString(f.val) {
			v.at(p("launcher", "kubernetes", f.key), "%s %q: a Kubernetes name (lower case letters, digits and '-', at most 63)", f.key, f.val)
		}
	}
	if k.ClaimPath != "" && !strings.HasPrefix(k.ClaimPath, "/") {
		v.at(p("launcher", "kubernetes", "claim_path"), "claim_path %q: the absolute path where this host sees the claim's volume", k.ClaimPath)
	}
	if k.RunAsUser < 0 {
		v.at(p("launcher", "kubernetes", "run_as_user"), "run_as_user %d: a uid above 0 (Pod Security \"restricted\" runs no pod as root)", k.RunAsUser)
	}
}
