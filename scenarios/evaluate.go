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
