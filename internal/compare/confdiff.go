package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/abbench/abbench/internal/bundle"
)

// shownDiffs is how many differing keys a config-mismatch names; the
// scenarios in the runs' bundles hold every one.
const shownDiffs = 3

// scenarioDiff names the keys whose values differ between the scenarios
// two runs ran (scenario.yaml in each run's bundle), as a config-mismatch
// reason's last words: "workload.requests 128 against 256". What the
// matched digest leaves out is left out here too: the description, the
// prompts file's path (its content is hashed), the arms' env values and
// builds (the declared difference). "" when either
// scenario cannot be read or the files show no difference of their own
// (the prompts file's content, a default that changed).
func scenarioDiff(dirA, dirB string) string {
	a, okA := flatScenario(dirA)
	b, okB := flatScenario(dirB)
	if !okA || !okB {
		return ""
	}
	a, b = matchedOnly(a), matchedOnly(b)
	var keys []string
	for k, v := range a {
		if b[k] != v {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	var said []string
	for _, k := range keys[:min(len(keys), shownDiffs)] {
		said = append(said, fmt.Sprintf("%s %s against %s", k, orNone(a[k]), orNone(b[k])))
	}
	if n := len(keys) - shownDiffs; n > 0 {
		said = append(said, fmt.Sprintf("%d more", n))
	}
	return "; their scenarios differ in " + strings.Join(said, ", ")
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// namesActivationRecords says whether the scenario in a run's bundle
// names the ranks' per-prompt records (evidence.activation.records).
func namesActivationRecords(dir string) bool {
	flat, ok := flatScenario(dir)
	return ok && flat["evidence.activation.records"] != ""
}

// flatScenario is the scenario in a run's bundle as key paths and their
// values.
func flatScenario(dir string) (map[string]string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, bundle.ScenarioFile))
	if err != nil {
		return nil, false
	}
	var doc any
	if yaml.Unmarshal(data, &doc) != nil {
		return nil, false
	}
	out := map[string]string{}
	flatten("", doc, out)
	return out, true
}

// matchedOnly is a flat scenario less what the matched digest leaves out:
// the description, the prompts file's path (its content is hashed), the
// arms' env values and builds (the declared difference).
func matchedOnly(flat map[string]string) map[string]string {
	for k := range flat {
		if k == "description" || k == "workload.prompts" || strings.HasPrefix(k, "arms.") && (strings.Contains(k, ".env.") || strings.Contains(k, ".build")) {
			delete(flat, k)
		}
	}
	return flat
}

// flatten puts every scalar of v into out under its dotted path (a list's
// items by index).
func flatten(path string, v any, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			flatten(join(k), x, out)
		}
	case []any:
		for i, x := range t {
			flatten(join(fmt.Sprint(i)), x, out)
		}
	default:
		out[path] = fmt.Sprint(t)
	}
}
