package scenarios

import (
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
