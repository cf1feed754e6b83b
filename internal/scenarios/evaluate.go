package scenarios

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ArmKeys are the environment keys every arm declares, sorted.
func (s *Scenario) ArmKeys() []string {
	for _, name := range s.ArmOrder {
		return slices.Sorted(maps.Keys(s.Arms[name].Env))
	}
	return nil
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
			if w.Duration > 0 {
				return 0, fmt.Errorf("workload.duration is %s: the client sends requests until it passes, so there is no count for %q (the record says how many)", w.Duration, expr)
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

// LogRule is one evidence rule that reads a role's logs.
type LogRule struct {
	// Name is the rule's key: mode, lifecycle_end, activation,
	// counter:NAME or fact:NAME.
	Name    string
	Pattern string
	// CountOnly marks a counter without a value group: it counts lines.
	CountOnly bool
}

// RulesFor lists the evidence rules that read role's logs, sorted by name:
// evidence scans a role's logs for them, and a bundle keeps the logs of
// the roles that have any.
func (s *Scenario) RulesFor(role string) []LogRule {
	ev := s.Evidence
	var out []LogRule
	for name, r := range map[string]*Rule{"mode": ev.Mode.Of(role), "lifecycle_end": ev.LifecycleEnd, "activation": ev.Activation} {
		if r != nil && r.Role == role {
			out = append(out, LogRule{Name: name, Pattern: r.Pattern})
		}
	}
	for name, c := range ev.Counters {
		if c.Role == role {
			out = append(out, LogRule{Name: "counter:" + name, Pattern: c.Pattern, CountOnly: c.Value == ""})
		}
	}
	for name, f := range ev.Extra {
		if f.Role == role {
			out = append(out, LogRule{Name: "fact:" + name, Pattern: f.Pattern})
		}
	}
	slices.SortFunc(out, func(a, b LogRule) int { return strings.Compare(a.Name, b.Name) })
	return out
}
