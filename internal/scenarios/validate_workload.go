package scenarios

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/digest"
)

// workloadLiterals warns where a command spells a workload value that the
// scenario declares: changing workload.requests would then not change
// what the client sends, and the run would be censored for a mismatch it
// did not cause.
func (v *validator) workloadLiterals() {
	w := v.s.Workload
	values := []workloadValue{
		{"request", "Requests", strconv.Itoa(int(w.Requests))},
		{"concurren", "Concurrency", strconv.Itoa(w.Concurrency)},
		{"round", "Rounds", strconv.Itoa(w.Rounds)},
	}
	prompts := ""
	if w.Prompts != "" {
		prompts = absDir(v.s.Path(w.Prompts))
	}
	for i, r := range v.s.Roles {
		for j := range r.Command {
			v.commandArg(p("roles", i, "command", j), r, j, values, prompts)
		}
	}
}

// workloadValue is a workload value a command may spell: a word of the
// flags that take it, its template field, and the value.
type workloadValue struct{ flag, field, value string }

// commandArg checks the jth argument of r's command (at path) against the
// workload values and the prompts file (absolute; "" for none).
func (v *validator) commandArg(path []any, r Role, j int, values []workloadValue, prompts string) {
	w := v.s.Workload
	arg := r.Command[j]
	flag, value := flagAndValue(r.Command, j)
	for _, c := range values {
		if value == c.value && strings.HasPrefix(flag, "-") && strings.Contains(flag, c.flag) {
			v.warn(path, "role %q spells workload.%s (%s) literally: use {{.Workload.%s}} so the workload is declared once", r.Name, strings.ToLower(c.field), value, c.field)
		}
	}
	if w.Requests == FromRecord && strings.Contains(arg, "Workload.Requests") {
		v.at(path, "role %q uses {{.Workload.Requests}}, but workload.requests is %s: there is no count to give (the client decides)", r.Name, FromRecordName)
	}
	if w.Prompts == "" && strings.Contains(arg, "Workload.Prompts") {
		v.at(path, "role %q uses {{.Workload.Prompts}}, but the workload has no prompts file", r.Name)
	}
	if prompts != "" && !strings.Contains(value, "Workload.Prompts") {
		if e, err := Expand(value, v.s.sampleData()); err == nil && e != "" && absDir(e) == prompts {
			v.warn(path, "role %q names the prompts file literally: use {{.Workload.Prompts}} so the workload is declared once", r.Name)
		}
	}
}

// flagAndValue is the flag a command's jth argument is given to (lower
// case; --flag=value, or the argument before it) and its value.
func flagAndValue(command []string, j int) (flag, value string) {
	arg := command[j]
	if f, val, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(f, "-") {
		return strings.ToLower(f), val
	}
	if j > 0 {
		flag = strings.ToLower(command[j-1])
	}
	return flag, arg
}

// digestPrompts reads the content digest of the workload's prompts file
// (or takes the one given), which ApplyDefaults then counts the requests
// by.
func (v *validator) digestPrompts() {
	w := &v.s.Workload
	switch {
	case v.prompts != nil:
		v.s.PromptsDigest = *v.prompts
	case v.datasetDigest(), w.Prompts == "":
	default:
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
			v.at(p("workload", "prompts"), "prompts file %s%s does not exist (%s)", w.Prompts, resolvedAs(w.Prompts, path), nearest(w.Prompts, path))
		case err != nil:
			v.at(p("workload", "prompts"), "prompts file: %v", err)
		default:
			v.s.PromptsDigest = fd.Digest
			if fd.Digest.Count == 0 {
				v.at(p("workload", "prompts"), "prompts file %s holds no prompts", path)
			}
		}
	}
}

func (v *validator) workload() {
	w := &v.s.Workload
	if w.Prompts == "" && w.Synthetic == nil && w.Requests == 0 {
		// A workload without prompts (a database benchmark's fixed count,
		// a duration-based client) declares its requests; nothing is
		// digested, so digest criteria are refused (see acceptance).
		v.at(p("workload"), "the workload needs prompts (a JSON Lines prompts file, relative to the scenario) or requests (a count, or %s for a client that decides, such as a duration-based one)", FromRecordName)
	}
	if n := v.s.PromptsDigest.Count; n > 0 && w.Requests > 0 && uint64(w.Requests) > n {
		v.at(p("workload", "requests"), "requests %d, but the prompts file holds %d prompts", w.Requests, n)
	}
	if w.Concurrency < 0 {
		v.at(p("workload", "concurrency"), "concurrency %d: must be at least 1", w.Concurrency)
	}
	if w.Rounds < 0 {
		v.at(p("workload", "rounds"), "rounds %d: must be at least 1", w.Rounds)
	}
	v.schedule()
	v.clientWorkload()
}
