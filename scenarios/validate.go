package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/redact"
)

// MaxRanks bounds a role's rank count.
const MaxRanks = 4096

// DefaultNoiseThreshold is the noise threshold in percent when a scenario sets none.
const DefaultNoiseThreshold = 3.0

var (
	namePattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
	envKeyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

type validator struct {
	s       *Scenario
	file    string
	root    *yaml.Node
	errs    Errors
	prompts *digest.Digest // given instead of reading the prompts file
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
	v.roles()
	v.evidence()
	v.acceptance()
	v.deadlines()
	if s.NoiseThreshold == 0 {
		s.NoiseThreshold = DefaultNoiseThreshold
	} else if !(s.NoiseThreshold > 0 && s.NoiseThreshold <= 100) { // NaN too: no JSON, no matched digest
		v.at(p("noise_threshold"), "noise_threshold %v: a percentage above 0 and at most 100", s.NoiseThreshold)
	}
	v.launcher()
	v.workloadLiterals()
}

// warn records a problem that does not invalidate the scenario.
func (v *validator) warn(path []any, format string, args ...any) {
	v.s.Warnings = append(v.s.Warnings, &Error{File: v.file, Line: lookup(v.root, path...).Line, Msg: "warning: " + fmt.Sprintf(format, args...)})
}

// workloadLiterals warns where a command spells a workload value that the
// scenario declares: changing workload.requests would then not change
// what the client sends, and the run would be censored for a mismatch it
// did not cause.
func (v *validator) workloadLiterals() {
	w := v.s.Workload
	values := []struct{ flag, field, value string }{
		{"request", "Requests", strconv.Itoa(int(w.Requests))},
		{"concurren", "Concurrency", strconv.Itoa(w.Concurrency)},
		{"round", "Rounds", strconv.Itoa(w.Rounds)},
	}
	prompts := ""
	if w.Prompts != "" {
		prompts = absDir(v.s.Path(w.Prompts))
	}
	for i, r := range v.s.Roles {
		for j, arg := range r.Command {
			prev := ""
			if j > 0 {
				prev = strings.ToLower(r.Command[j-1])
			}
			flag, value, isFlag := strings.Cut(arg, "=")
			if isFlag && strings.HasPrefix(flag, "-") {
				prev = strings.ToLower(flag)
			} else {
				value = arg
			}
			for _, c := range values {
				if value == c.value && strings.HasPrefix(prev, "-") && strings.Contains(prev, c.flag) {
					v.warn(p("roles", i, "command", j), "role %q spells workload.%s (%s) literally: use {{.Workload.%s}} so the workload is declared once", r.Name, strings.ToLower(c.field), value, c.field)
				}
			}
			if w.Requests == FromRecord && strings.Contains(arg, "Workload.Requests") {
				v.at(p("roles", i, "command", j), "role %q uses {{.Workload.Requests}}, but workload.requests is %s: there is no count to give (the client decides)", r.Name, FromRecordName)
			}
			if w.Prompts == "" && strings.Contains(arg, "Workload.Prompts") {
				v.at(p("roles", i, "command", j), "role %q uses {{.Workload.Prompts}}, but the workload has no prompts file", r.Name)
			}
			if prompts != "" && !strings.Contains(value, "Workload.Prompts") {
				if e, err := Expand(value, v.s.sampleData()); err == nil && e != "" && absDir(e) == prompts {
					v.warn(p("roles", i, "command", j), "role %q names the prompts file literally: use {{.Workload.Prompts}} so the workload is declared once", r.Name)
				}
			}
		}
	}
}

func (v *validator) arms() {
	s := v.s
	if len(s.Arms) < 2 {
		v.atKey(p("arms"), "%d arm(s): an A/B needs at least two arms that differ in their env", len(s.Arms))
	}
	if len(s.ArmOrder) != len(s.Arms) {
		s.ArmOrder = slices.Sorted(maps.Keys(s.Arms))
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
			v.at(p("arms", name, "env"), "arm %q declares keys %s but arm %q declares %s: every arm must set the same keys",
				name, strings.Join(keys, ", "), first, strings.Join(firstKeys, ", "))
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

// ArmKeys are the environment keys every arm declares, sorted.
func (s *Scenario) ArmKeys() []string {
	for _, name := range s.ArmOrder {
		return slices.Sorted(maps.Keys(s.Arms[name].Env))
	}
	return nil
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

func (v *validator) workload() {
	w := &v.s.Workload
	if w.Prompts == "" {
		// A workload without prompts (a database benchmark's fixed count,
		// a duration-based client) declares its requests; nothing is
		// digested, so digest criteria are refused (see acceptance).
		if w.Requests == 0 {
			v.at(p("workload"), "the workload needs prompts (a JSON Lines prompts file, relative to the scenario) or requests (a count, or %s for a client that decides, such as a duration-based one)", FromRecordName)
		}
	} else if v.prompts != nil {
		v.s.PromptsDigest = *v.prompts
		if w.Algorithm == "" {
			w.Algorithm = string(v.prompts.Algorithm)
		}
	} else {
		path := v.s.Path(w.Prompts)
		var alg digest.Algorithm
		if w.Algorithm != "" {
			a, err := digest.ParseAlgorithm(w.Algorithm)
			if err != nil {
				v.at(p("workload", "algorithm"), "%v", err)
			}
			alg = a
		}
		fd, err := digest.ReadFile(path, digest.ReadOptions{Algorithm: alg, Field: w.Field})
		switch {
		case errors.Is(err, os.ErrNotExist):
			v.at(p("workload", "prompts"), "prompts file %s does not exist (paths are relative to the scenario file)", path)
		case err != nil:
			v.at(p("workload", "prompts"), "prompts file: %v", err)
		default:
			v.s.PromptsDigest = fd.Digest
			if alg == "" && w.Algorithm == "" {
				w.Algorithm = string(fd.Digest.Algorithm)
			}
			if fd.Digest.Count == 0 {
				v.at(p("workload", "prompts"), "prompts file %s holds no prompts", path)
			}
		}
	}
	if w.Requests == 0 {
		w.Requests = RequestCount(v.s.PromptsDigest.Count)
	} else if n := v.s.PromptsDigest.Count; n > 0 && w.Requests > 0 && uint64(w.Requests) > n {
		v.at(p("workload", "requests"), "requests %d, but the prompts file holds %d prompts", w.Requests, n)
	}
	if w.Concurrency == 0 {
		w.Concurrency = 1
	} else if w.Concurrency < 0 {
		v.at(p("workload", "concurrency"), "concurrency %d: must be at least 1", w.Concurrency)
	}
	if w.Rounds == 0 {
		w.Rounds = 1
	} else if w.Rounds < 0 {
		v.at(p("workload", "rounds"), "rounds %d: must be at least 1", w.Rounds)
	}
}

// Path resolves a path of the scenario relative to its file.
func (s *Scenario) Path(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(s.Dir, rel)
}

// Role returns the role named name, or nil.
func (s *Scenario) Role(name string) *Role {
	for i := range s.Roles {
		if s.Roles[i].Name == name {
			return &s.Roles[i]
		}
	}
	return nil
}

// userPattern is a POSIX-portable user name, as useradd accepts it.
var userPattern = regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`)

func (v *validator) roles() {
	s := v.s
	if len(s.Roles) == 0 {
		v.at(p("roles"), "no roles: list the processes of the system under test")
	}
	seen := map[string]bool{}
	clients := 0
	for i := range s.Roles {
		r := &s.Roles[i]
		rp := p("roles", i)
		switch {
		case r.Name == "":
			v.at(rp, "role %d has no name", i+1)
		case !namePattern.MatchString(r.Name):
			v.at(append(rp, "name"), "role name %q: use lower-case letters, digits, '-' and '_'", r.Name)
		case seen[r.Name]:
			v.at(append(rp, "name"), "duplicate role name %q", r.Name)
		}
		seen[r.Name] = true
		if r.Ranks == 0 {
			r.Ranks = 1
		} else if r.Ranks < 0 || r.Ranks > MaxRanks {
			v.at(append(rp, "ranks"), "role %q: ranks %d: must be between 1 and %d", r.Name, r.Ranks, MaxRanks)
		}
		if len(r.Command) == 0 {
			v.at(rp, "role %q has no command: give the argument list to start one rank", r.Name)
		}
		if r.User != "" && !userPattern.MatchString(r.User) {
			v.at(append(rp, "user"), "role %q: user %q is not a user name (lower-case letters, digits, '_' and '-', at most 32)", r.Name, r.User)
		}
		for j, arg := range r.Command {
			v.template(append(rp, "command", j), arg)
		}
		if r.Log == "" {
			r.Log = r.Name + "-{{.Rank}}.log"
		} else {
			v.template(append(rp, "log"), r.Log)
			if strings.Contains(r.Log, "..") || filepath.IsAbs(r.Log) {
				v.at(append(rp, "log"), "log %q must stay inside the run directory", r.Log)
			}
		}
		v.env(append(rp, "env"), r.Env, true)
		if r.Ready != nil {
			switch {
			case r.Ready.Log == "" && r.Ready.Port == "":
				v.at(append(rp, "ready"), "ready probe of role %q: give log (a pattern) or port", r.Name)
			case r.Ready.Log != "" && r.Ready.Port != "":
				v.at(append(rp, "ready"), "ready probe of role %q: give log or port, not both", r.Name)
			case r.Ready.Log != "":
				v.regexp(append(rp, "ready", "log"), r.Ready.Log)
			default:
				v.template(append(rp, "ready", "port"), r.Ready.Port)
			}
		}
		if r.Client {
			clients++
			if clients > 1 {
				v.at(append(rp, "client"), "role %q is a second client: one role's exit ends the measured phase", r.Name)
			}
		}
	}
	for i, r := range s.Roles {
		for j, a := range r.After {
			if a == r.Name {
				v.at(p("roles", i, "after", j), "role %q cannot start after itself", r.Name)
			} else if !seen[a] {
				v.at(p("roles", i, "after", j), "role %q starts after %q, which is not a role", r.Name, a)
			}
		}
	}
	if cycle := v.afterCycle(); cycle != "" {
		v.atKey(p("roles"), "roles wait on each other in a cycle: %s", cycle)
	}
}

// afterCycle finds a cycle in the start order, including after_ready edges.
func (v *validator) afterCycle() string {
	deps := map[string][]string{}
	for _, r := range v.s.Roles {
		deps[r.Name] = append(deps[r.Name], r.After...)
		if r.AfterReady {
			for _, o := range v.s.Roles {
				if !o.AfterReady {
					deps[r.Name] = append(deps[r.Name], o.Name)
				}
			}
		}
	}
	state := map[string]int{}
	var stack []string
	var visit func(string) string
	visit = func(n string) string {
		switch state[n] {
		case 1:
			i := slices.Index(stack, n)
			return strings.Join(append(stack[i:], n), " -> ")
		case 2:
			return ""
		}
		state[n] = 1
		stack = append(stack, n)
		for _, d := range deps[n] {
			if _, ok := deps[d]; !ok || d == n {
				continue // unknown roles and self-waits are reported on their own
			}
			if c := visit(d); c != "" {
				return c
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		return ""
	}
	for _, r := range v.s.Roles {
		if c := visit(r.Name); c != "" {
			return c
		}
	}
	return ""
}

func (v *validator) template(path []any, text string) {
	if _, err := Expand(text, v.s.sampleData()); err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		v.at(path, "template %q: %s (available: %s)", text, msg, templateFields)
		return
	}
	if strings.Contains(text, ".Build") && !v.s.HasBuilds() {
		v.at(path, "template %q: {{.Build}} is an arm's build, but no arm declares one (arms: NAME: build: {binary: PATH})", text)
	}
}

// evidenceFile checks the template of a file evidence is read from: it
// must name a file inside the run directory (relative, or under {{.Out}}),
// so no record from elsewhere, stale or shared, can count as the run's.
func (v *validator) evidenceFile(path []any, text string, wholeRun bool) {
	before := len(v.errs)
	if wholeRun {
		v.runTemplate(path, text)
	} else {
		v.template(path, text)
	}
	if len(v.errs) > before {
		return
	}
	d := v.s.sampleData()
	file, _ := Expand(text, d)
	rel := file
	if filepath.IsAbs(file) {
		rel, _ = filepath.Rel(d.Out, file)
	}
	if !filepath.IsLocal(rel) {
		v.at(path, "%q names a file outside the run directory: evidence is read only from the run's own files (give a path relative to it, or under {{.Out}})", text)
	}
}

// perRank matches the template fields that have a value per rank only.
var perRank = regexp.MustCompile(`\{\{[^}]*\.(Rank|Ranks|Role|Host)\b`)

// runTemplate checks a template that is expanded once for the whole run:
// fields of one rank have no value there.
func (v *validator) runTemplate(path []any, text string) {
	if m := perRank.FindStringSubmatch(text); m != nil {
		v.at(path, "template %q: .%s has no value for a file of the whole run (it is a rank's)", text, m[1])
		return
	}
	v.template(path, text)
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

func (v *validator) roleRef(path []any, name string) *Role {
	if name == "" {
		v.at(path, "missing role: name the role whose logs this reads")
		return nil
	}
	r := v.s.Role(name)
	if r == nil {
		v.at(append(path, "role"), "role %q does not exist (roles: %s)", name, strings.Join(v.roleNames(), ", "))
	}
	return r
}

func (v *validator) roleNames() []string {
	var names []string
	for _, r := range v.s.Roles {
		names = append(names, r.Name)
	}
	return names
}

func (v *validator) evidence() {
	e := &v.s.Evidence
	if e.Mode != nil {
		mp := p("evidence", "mode")
		r := v.roleRef(mp, e.Mode.Role)
		if re := v.regexp(append(mp, "pattern"), e.Mode.Pattern, "rank"); re != nil {
			keys := v.s.ArmKeys()
			var armGroups int
			for _, g := range re.SubexpNames()[1:] {
				if g == "" || g == "rank" {
					continue
				}
				if !slices.Contains(keys, g) {
					v.at(append(mp, "pattern"), "mode group %q is not an arm key (arm keys: %s)", g, strings.Join(keys, ", "))
				}
				armGroups++
			}
			if armGroups == 0 {
				v.at(append(mp, "pattern"), "mode pattern has no group named after an arm key, so it proves nothing about the arm (arm keys: %s)", strings.Join(keys, ", "))
			}
		}
		if r != nil && !r.ArmEnv {
			v.at(append(mp, "role"), "mode role %q does not take the arm env (arm_env: true): its mode could never match the arm", r.Name)
		}
	}
	if e.LifecycleEnd != nil {
		v.roleRef(p("evidence", "lifecycle_end"), e.LifecycleEnd.Role)
		v.regexp(p("evidence", "lifecycle_end", "pattern"), e.LifecycleEnd.Pattern, "rank")
	} else if e.Profiling {
		v.at(p("evidence", "profiling"), "profiling: true needs evidence.lifecycle_end to find where the profiling lifecycle ends")
	}
	if e.Profiling && e.Mode == nil {
		v.at(p("evidence", "profiling"), "profiling: true needs evidence.mode to find where the measured lifecycle starts")
	}
	if e.Activation != nil {
		v.roleRef(p("evidence", "activation"), e.Activation.Role)
		v.regexp(p("evidence", "activation", "pattern"), e.Activation.Pattern, "rank", "count", "digest", "algorithm")
		if e.Activation.Records != "" {
			v.evidenceFile(p("evidence", "activation", "records"), e.Activation.Records, false)
		}
	}
	for name, r := range map[string]*Rule{"mode": e.Mode, "lifecycle_end": e.LifecycleEnd} {
		if r != nil && r.Records != "" {
			v.at(p("evidence", name, "records"), "records is only for evidence.activation")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(e.Counters)) {
		c := e.Counters[name]
		cp := p("evidence", "counters", name)
		v.roleRef(cp, c.Role)
		groups := []string{"rank"}
		if c.Value != "" {
			groups = append(groups, c.Value)
		}
		v.regexp(append(cp, "pattern"), c.Pattern, groups...)
	}
	for _, name := range slices.Sorted(maps.Keys(e.Extra)) {
		v.roleRef(p("evidence", "facts", name), e.Extra[name].Role)
		v.regexp(p("evidence", "facts", name, "pattern"), e.Extra[name].Pattern)
	}
	names := map[string]bool{}
	for i, c := range e.Configs {
		cp := p("evidence", "configs", i)
		if c.Name == "" || names[c.Name] {
			v.at(cp, "config fact %d needs a unique name", i+1)
		}
		names[c.Name] = true
		v.roleRef(cp, c.Role)
		if c.File == "" || c.Path == "" {
			v.at(cp, "config fact %q needs file and path", c.Name)
		} else {
			v.evidenceFile(append(cp, "file"), c.File, false)
		}
	}
	if t := e.Throughput; t != nil {
		tp := p("evidence", "throughput")
		if t.File == "" {
			v.at(tp, "throughput.file is missing: name the client's record file (relative to the run directory)")
		} else {
			if t.Valid != "" && (t.Format == "console" || t.Format == "regex") {
				v.at(append(tp, "valid"), "valid %q: only a JSON record (vllm, vllm-append, trtllm, sglang, aiperf) carries a validity field", t.Valid)
			}
			v.evidenceFile(append(tp, "file"), t.File, true)
		}
		if !slices.Contains(ThroughputFormats, t.Format) {
			v.at(append(tp, "format"), "throughput format %q is not known (known: %s)", t.Format, strings.Join(ThroughputFormats, ", "))
		}
		if t.Metric == "" {
			t.Metric = "output_throughput"
		}
		if t.Format == "regex" {
			v.regexp(append(tp, "pattern"), t.Pattern, t.Metric)
		} else if t.Pattern != "" {
			v.at(append(tp, "pattern"), "throughput.pattern is only for format regex")
		}
	}
}

var workloadNames = []string{"requests", "rounds", "concurrency"}

// EvalExpr evaluates an acceptance expression such as "requests*rounds".
func (w Workload) EvalExpr(expr string) (int64, error) {
	var product int64 = 1
	for _, term := range strings.Split(expr, "*") {
		term = strings.TrimSpace(term)
		var n int64
		switch term {
		case "requests":
			if w.Requests == FromRecord {
				return 0, fmt.Errorf("workload.requests is %s: there is no count for %q", FromRecordName, expr)
			}
			n = int64(w.Requests)
		case "rounds":
			n = int64(w.Rounds)
		case "concurrency":
			n = int64(w.Concurrency)
		default:
			var err error
			if n, err = strconv.ParseInt(term, 10, 64); err != nil || n < 0 {
				return 0, fmt.Errorf("%q is neither a non-negative integer nor one of %s", term, strings.Join(workloadNames, ", "))
			}
		}
		product *= n
	}
	return product, nil
}

func (v *validator) acceptance() {
	s := v.s
	for i, c := range s.Acceptance {
		cp := p("acceptance", i)
		kind := c.Kind()
		if kind == "" {
			v.at(cp, "criterion %d: set exactly one of requests, throughput, mode, digest, activation, counter, config, clean_shutdown", i+1)
			continue
		}
		for j, a := range c.Arms {
			if _, ok := s.Arms[a]; !ok {
				v.at(append(cp, "arms", j), "criterion %d names arm %q, which does not exist (arms: %s)", i+1, a, strings.Join(s.ArmOrder, ", "))
			}
		}
		want := func(field, value string, allowed ...string) {
			if !slices.Contains(allowed, value) {
				v.at(append(cp, field), "%s: %q is not allowed (allowed: %s)", field, value, strings.Join(allowed, ", "))
			}
		}
		switch kind {
		case "requests":
			want("requests", c.Requests, "all")
		case "throughput":
			want("throughput", c.Throughput, "valid")
			if s.Evidence.Throughput == nil {
				v.at(cp, "criterion %d needs evidence.throughput", i+1)
			}
		case "mode":
			want("mode", c.Mode, "all-ranks")
			if s.Evidence.Mode == nil {
				v.at(cp, "criterion %d needs evidence.mode", i+1)
			}
		case "digest", "activation":
			if s.Workload.Prompts == "" {
				v.at(cp, "criterion %d (%s) needs workload.prompts: without a prompts file there is no prompt content to digest", i+1, kind)
			}
		}
		switch kind {
		case "digest":
			want("digest", c.Digest, "agree")
			if s.Evidence.Activation == nil {
				v.at(cp, "criterion %d needs evidence.activation", i+1)
			}
		case "activation":
			if _, err := s.Workload.EvalExpr(c.Activation); err != nil {
				v.at(append(cp, "activation"), "activation: %v", err)
			}
			if s.Evidence.Activation == nil {
				v.at(cp, "criterion %d needs evidence.activation", i+1)
			}
		case "counter":
			if _, ok := s.Evidence.Counters[c.Counter]; !ok {
				v.at(append(cp, "counter"), "counter %q is not defined under evidence.counters", c.Counter)
			}
			if c.Equals == "" {
				v.at(cp, "counter criterion %d needs equals (an integer or an expression such as requests)", i+1)
			} else if _, err := s.Workload.EvalExpr(c.Equals); err != nil {
				v.at(append(cp, "equals"), "equals: %v", err)
			}
			if c.Role != "" && s.Role(c.Role) == nil {
				v.at(append(cp, "role"), "role %q does not exist", c.Role)
			}
		case "config":
			found := slices.ContainsFunc(s.Evidence.Configs, func(f ConfigFact) bool { return f.Name == c.Config })
			if !found {
				v.at(append(cp, "config"), "config fact %q is not defined under evidence.configs", c.Config)
			}
		}
	}
}

func (v *validator) deadlines() {
	d := &v.s.Deadlines
	fields := []struct {
		name string
		val  *Duration
		def  Duration
	}{
		{"ready", &d.Ready, DefaultDeadlines.Ready},
		{"client", &d.Client, DefaultDeadlines.Client},
		{"drain", &d.Drain, DefaultDeadlines.Drain},
		{"teardown", &d.Teardown, DefaultDeadlines.Teardown},
		{"kill_grace", &d.KillGrace, DefaultDeadlines.KillGrace},
	}
	for _, f := range fields {
		if child(child(v.root, "deadlines"), f.name) == nil {
			*f.val = f.def
			continue
		}
		if *f.val <= 0 || time.Duration(*f.val) > MaxDeadline {
			v.at(p("deadlines", f.name), "deadline %s %s: must be above 0 and at most %s", f.name, f.val, MaxDeadline)
		}
	}
}

func (v *validator) launcher() {
	l := v.s.Launcher
	if l.Local.CPUs != "" && !regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*$`).MatchString(l.Local.CPUs) {
		v.at(p("launcher", "local", "cpus"), "cpus %q: a CPU list such as 0-3 or 0,2", l.Local.CPUs)
	}
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
