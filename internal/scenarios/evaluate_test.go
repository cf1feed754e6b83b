package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

func TestEvalExpr(t *testing.T) {
	w := Workload{Requests: 4, Concurrency: 2, Rounds: 3}
	for expr, want := range map[string]int64{"requests*rounds": 12, " concurrency * 5 ": 10, "7": 7, "requests*rounds*concurrency": 24} {
		if got, err := w.EvalExpr(expr); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", expr, got, err, want)
		}
	}
	for expr, want := range map[string]string{"prompts": "neither a non-negative integer", "-1": "neither", "requests+1": "neither", "": "neither"} {
		if _, err := w.EvalExpr(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", expr, err, want)
		}
	}
	w.Requests = FromRecord
	if _, err := w.EvalExpr("requests*rounds"); err == nil || !strings.Contains(err.Error(), FromRecordName) {
		t.Errorf("requests from the record: error %v, want one naming %s", err, FromRecordName)
	}
}

func TestRulesFor(t *testing.T) {
	s := &Scenario{Evidence: Evidence{
		Mode:         ModeRules{{Role: "srv", Pattern: "m"}},
		LifecycleEnd: &Rule{Role: "srv", Pattern: "e"},
		Activation:   &Rule{Role: "cli", Pattern: "a"},
		Counters:     map[string]Counter{"lines": {Role: "srv", Pattern: "l"}, "last": {Role: "srv", Pattern: "v=(?P<v>\\d+)", Value: "v"}, "other": {Role: "cli", Pattern: "o"}},
		Extra:        map[string]Rule{"gpu": {Role: "srv", Pattern: "g"}},
	}}
	var got []string
	for _, r := range s.RulesFor("srv") {
		got = append(got, fmt.Sprintf("%s=%s/%v", r.Name, r.Pattern, r.CountOnly))
	}
	want := `counter:last=v=(?P<v>\d+)/false counter:lines=l/true fact:gpu=g/false lifecycle_end=e/false mode=m/false`
	if strings.Join(got, " ") != want {
		t.Errorf("rules of srv:\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	if r := s.RulesFor("cli"); len(r) != 2 || r[0].Name != "activation" || r[1].Name != "counter:other" {
		t.Errorf("rules of cli: %+v", r)
	}
	if r := s.RulesFor("db"); len(r) != 0 {
		t.Errorf("rules of a role no rule reads: %+v", r)
	}
}
