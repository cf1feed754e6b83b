package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// resumable is what plan.json records for abbench run --resume: the
// scenario file and the scenario, the options, the binaries, and the
// files the roles run.
func (c *Config) resumable() *rundir.Resumable {
	return &rundir.Resumable{ScenarioFile: c.ScenarioPath, Scenario: scenarioRecord(c.Scenario), Options: maps.Clone(c.Options), Binaries: c.binaries(),
		Executables: c.executables()}
}

// scenarioRecord is the scenario's canonical encoding with its arms as
// they are: the matched digest leaves arm env values and builds out (they
// are the declared difference), a resume holds them too.
func scenarioRecord(s *scenarios.Scenario) json.RawMessage {
	var doc map[string]any
	if json.Unmarshal(s.Canonical(), &doc) != nil {
		panic("campaign: the scenario's canonical encoding does not decode")
	}
	tree, _ := doc["scenario"].(map[string]any)
	if tree == nil {
		tree = map[string]any{}
	}
	tree["prompts"] = doc["prompts"]
	arms := map[string]any{}
	for name, a := range s.Arms {
		arms[name] = a
	}
	tree["arms"] = arms
	data, err := json.Marshal(tree)
	if err != nil {
		panic("campaign: the scenario's record: " + err.Error())
	}
	return data
}

// binaries are the executables the campaign runs, by content: this
// abbench (every run's controller), the rank wrapper beside it, and every
// arm's build.
func (c *Config) binaries() []rundir.Binary {
	bins := []rundir.Binary{{Name: "abbench", Path: c.Self}}
	if rank := filepath.Join(filepath.Dir(c.Self), "abbench-rank"); exists(rank) {
		bins = append(bins, rundir.Binary{Name: "abbench-rank", Path: rank})
	}
	s := c.Scenario
	for _, arm := range s.ArmOrder {
		if s.Arms[arm].Build != nil {
			bins = append(bins, rundir.Binary{Name: "build of " + arm, Path: s.TemplateData(scenarios.Place{Arm: arm}).Build})
		}
	}
	for i := range bins {
		bins[i].SHA256, _ = filehash.SHA256(bins[i].Path) // "": not there, which a resume holds it to as well
	}
	return bins
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// resumeChanges says, one line each, how the campaign as it would start
// now (fresh) departs from the one plan.json recorded (was): its
// scenario, options (said as name says them), binaries, and last the
// plan they make (the files its roles run are Reopen's to judge:
// executableChanges).
func resumeChanges(was, fresh *rundir.Plan, name func(string) string) []string {
	if was.Resume == nil {
		if was.Launcher == LauncherStages {
			return []string{"plan.json is a plan of CI stages (abbench plan): its stages run as abbench arm, each resumed by running it again"}
		}
		return []string{"plan.json records nothing to hold a resume to (the scenario, the options, the binaries): it was made by an abbench without --resume"}
	}
	a, b := was.Resume, fresh.Resume
	var out []string
	if a.ScenarioFile != b.ScenarioFile {
		out = append(out, fmt.Sprintf("the scenario file: the campaign began with %s, now %s", a.ScenarioFile, b.ScenarioFile))
	}
	for _, d := range jsonDiff("", decode(a.Scenario), decode(b.Scenario)) {
		out = append(out, fmt.Sprintf("the scenario (matched digest %.12s, now %.12s): %s", was.MatchedDigest, fresh.MatchedDigest, d))
	}
	out = append(out, optionChanges(a.Options, b.Options, name)...)
	out = append(out, binaryChanges(a.Binaries, b.Binaries)...)
	if len(out) == 0 && !samePlan(was, fresh) {
		out = append(out, fmt.Sprintf("the plan the scenario and flags make now (%d runs, plan digest %.12s) is not the campaign's (%d runs, %.12s): a file a flag names (--calibration) changed",
			len(fresh.Runs), fresh.Ref(1).PlanDigest, len(was.Runs), was.Ref(1).PlanDigest))
	}
	return out
}

// samePlan says whether two plans are the same campaign: the fixed part
// every run's provenance signs, the launcher and the design. A run is
// its name in the campaign (N-ARM), not the path it lay at: a campaign
// copied or moved to another directory is the same campaign (Reopen
// takes the runs' paths of where it lies now).
func samePlan(a, b *rundir.Plan) bool {
	if a.Launcher != b.Launcher || a.Repeat != b.Repeat || len(a.Runs) != len(b.Runs) || a.Ref(1).PlanDigest != b.Ref(1).PlanDigest {
		return false
	}
	for i := range a.Runs {
		if filepath.Base(a.Runs[i].Dir) != filepath.Base(b.Runs[i].Dir) || a.Runs[i].Warmup != b.Runs[i].Warmup {
			return false
		}
	}
	return true
}

// optionChanges says, one line each, the options given to the campaign
// (was) and now that differ, each option as name says it (nil: its key).
func optionChanges(was, now map[string]string, name func(string) string) []string {
	if name == nil {
		name = func(key string) string { return "option " + key }
	}
	var out []string
	for _, key := range slices.Sorted(maps.Keys(joined(was, now))) {
		a, inA := was[key]
		b, inB := now[key]
		switch {
		case inA && !inB:
			out = append(out, fmt.Sprintf("%s: the campaign was given %s, now it is not given", name(key), a))
		case !inA && inB:
			out = append(out, fmt.Sprintf("%s: the campaign was not given it, now %s", name(key), b))
		case a != b:
			out = append(out, fmt.Sprintf("%s: the campaign was given %s, now %s", name(key), a, b))
		}
	}
	return out
}

func binaryChanges(was, now []rundir.Binary) []string {
	var out []string
	for _, a := range was {
		i := slices.IndexFunc(now, func(b rundir.Binary) bool { return b.Name == a.Name })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("%s: the campaign ran %s, now there is none", a.Name, a.Path))
		case now[i].Path != a.Path:
			out = append(out, fmt.Sprintf("%s: the campaign ran %s, now %s", a.Name, a.Path, now[i].Path))
		case now[i].SHA256 != a.SHA256:
			out = append(out, fmt.Sprintf("%s %s: its content changed (sha256 %s, now %s)", a.Name, a.Path, shortSum(a.SHA256), shortSum(now[i].SHA256)))
		}
	}
	for _, b := range now {
		if !slices.ContainsFunc(was, func(a rundir.Binary) bool { return a.Name == b.Name }) {
			out = append(out, fmt.Sprintf("%s: the campaign ran none, now %s", b.Name, b.Path))
		}
	}
	return out
}

func shortSum(s string) string {
	if s == "" {
		return "none: the file was not there"
	}
	return s[:min(12, len(s))]
}

func joined(a, b map[string]string) map[string]string {
	m := maps.Clone(a)
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, b)
	return m
}

func decode(raw json.RawMessage) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// jsonDiff names every path at which two decoded JSON values differ,
// with the values (a long one cut).
func jsonDiff(path string, a, b any) []string {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(joinedAny(am, bm))) {
			out = append(out, jsonDiff(join(path, k), am[k], bm[k])...)
		}
		return out
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList && len(al) == len(bl) {
		var out []string
		for i := range al {
			out = append(out, jsonDiff(join(path, fmt.Sprint(i)), al[i], bl[i])...)
		}
		return out
	}
	ja, jb := shown(path, a), shown(path, b)
	if ja == jb {
		return nil
	}
	if path == "" {
		path = "the whole scenario"
	}
	return []string{fmt.Sprintf("%s: %s, now %s", path, ja, jb)}
}

func joinedAny(a, b map[string]any) map[string]any {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// shown is a value at path as a change names it: its JSON, cut at 60
// bytes (a deadline as a duration); absent when there is none.
func shown(path string, v any) string {
	if v == nil {
		return "absent"
	}
	if n, ok := v.(json.Number); ok && strings.HasPrefix(path, "deadlines.") {
		if ns, err := n.Int64(); err == nil {
			return time.Duration(ns).String()
		}
	}
	data, _ := json.Marshal(v)
	s := string(data)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.ReplaceAll(s, "\n", " ")
}
