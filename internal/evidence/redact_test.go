package evidence

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// Reasons and criteria quote what a run recorded (a config value, a
// status's reason); evidence.json holds none of a URL's password.
func TestEvidenceQuotesNoURLPassword(t *testing.T) {
	r := goodRun()
	r.cfg = "scheduler: {policy: 'https://svc:cfgpw-88@cfg.example/p'}\n"
	r.extra = []reason.Reason{reason.New(reason.LaunchFailed, "dial postgres://app:stpw-77@db:5432/x: refused")}
	r.state = "failed"
	e := r.collect(t)
	data, _ := json.Marshal(e)
	for _, pw := range []string{"cfgpw-88", "stpw-77"} {
		if strings.Contains(string(data), pw) {
			t.Errorf("evidence quotes the password %s: %s", pw, data)
		}
	}
	if !strings.Contains(string(data), "https://svc:[REDACTED]@cfg.example/p") || !strings.Contains(string(data), "postgres://app:[REDACTED]@db") {
		t.Errorf("evidence does not say what it redacted: %s", data)
	}
}
