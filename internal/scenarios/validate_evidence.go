package scenarios

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
	"github.com/abbench/abbench/internal/records"
)

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
var perRank = lazyregexp.New(`\{\{[^}]*\.(Rank|Ranks|Role|Host)\b`)

// runTemplate checks a template that is expanded once for the whole run:
// fields of one rank have no value there.
func (v *validator) runTemplate(path []any, text string) {
	if m := perRank.FindStringSubmatch(text); m != nil {
		v.at(path, "template %q: .%s has no value for a file of the whole run (it is a rank's)", text, m[1])
		return
	}
	v.template(path, text)
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
	v.modes(e.Mode)
	v.lifecycle(e)
	if e.Activation != nil {
		v.roleRef(p("evidence", "activation"), e.Activation.Role)
		v.regexp(p("evidence", "activation", "pattern"), e.Activation.Pattern, "rank", "count", "digest", "algorithm")
		if e.Activation.Records != "" {
			v.evidenceFile(p("evidence", "activation", "records"), e.Activation.Records, false)
		}
	}
	for i, r := range e.Mode {
		if r.Records != "" {
			v.at(append(v.modePath(i), "records"), "records is only for evidence.activation")
		}
	}
	if r := e.LifecycleEnd; r != nil && r.Records != "" {
		v.at(p("evidence", "lifecycle_end", "records"), "records is only for evidence.activation")
	}
	v.counters(e.Counters)
	for _, name := range slices.Sorted(maps.Keys(e.Extra)) {
		v.factSource(p("evidence", "facts", name), e.Extra[name].Role)
		v.regexp(p("evidence", "facts", name, "pattern"), e.Extra[name].Pattern)
	}
	v.configs(e.Configs)
	if e.Throughput != nil {
		v.throughput(e.Throughput)
	}
}

// mode checks a rule of evidence.mode (mp its path): a rule of a role that
// takes the arm env, with a group named after an arm key, as only that
// proves the arm.
func (v *validator) mode(mp []any, m *Rule) {
	r := v.roleRef(mp, m.Role)
	if re := v.regexp(append(mp, "pattern"), m.Pattern, "rank"); re != nil {
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

// lifecycle checks evidence.lifecycle_end and what profiling needs.
func (v *validator) lifecycle(e *Evidence) {
	if e.LifecycleEnd != nil {
		v.roleRef(p("evidence", "lifecycle_end"), e.LifecycleEnd.Role)
		v.regexp(p("evidence", "lifecycle_end", "pattern"), e.LifecycleEnd.Pattern, "rank")
	} else if e.Profiling {
		v.at(p("evidence", "profiling"), "profiling: true needs evidence.lifecycle_end to find where the profiling lifecycle ends")
	}
	if e.Profiling && len(e.Mode) == 0 {
		v.at(p("evidence", "profiling"), "profiling: true needs evidence.mode to find where the measured lifecycle starts")
	}
}

func (v *validator) counters(counters map[string]Counter) {
	for _, name := range slices.Sorted(maps.Keys(counters)) {
		c := counters[name]
		cp := p("evidence", "counters", name)
		v.roleRef(cp, c.Role)
		groups := []string{"rank"}
		if c.Value != "" {
			groups = append(groups, c.Value)
		}
		v.regexp(append(cp, "pattern"), c.Pattern, groups...)
	}
}

func (v *validator) configs(configs []ConfigFact) {
	names := map[string]bool{}
	for i, c := range configs {
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
}

func (v *validator) throughput(t *Throughput) {
	tp := p("evidence", "throughput")
	if t.File == "" {
		v.at(tp, "throughput.file is missing: name the client's record file (relative to the run directory)")
	} else {
		if t.Valid != "" && (t.Format == "console" || t.Format == "regex") {
			v.at(append(tp, "valid"), "valid %q: only a JSON record (vllm, vllm-append, trtllm, sglang, aiperf) carries a validity field", t.Valid)
		}
		v.evidenceFile(append(tp, "file"), t.File, true)
	}
	if formats := records.Formats(); !slices.Contains(formats, t.Format) {
		v.at(append(tp, "format"), "throughput format %q is not known (known: %s)", t.Format, strings.Join(formats, ", "))
	}
	if t.Format == "regex" {
		v.regexp(append(tp, "pattern"), t.Pattern, t.Metric)
		if t.Result != "" {
			v.at(append(tp, "result"), "throughput.result %q: a regex record has no results to name (its pattern's last match is the record)", t.Result)
		}
	} else if t.Pattern != "" {
		v.at(append(tp, "pattern"), "throughput.pattern is only for format regex")
	}
}
