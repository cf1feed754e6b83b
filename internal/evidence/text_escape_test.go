package evidence

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/reason"
)

// What a rank logs reaches the text report escaped: a mode line's or a
// log line's terminal control bytes are shown as \x1b, never sent to the
// reader's terminal, and the table stays aligned; the JSON keeps the
// bytes as they were.
func TestTextReportEscapesWhatRanksLogged(t *testing.T) {
	mode := "mode rank=0 terminal=\x1b[2J\x1b]0;accepted\x07"
	e := &Evidence{Arm: "a",
		Criteria: []Criterion{{ID: "mode", Kind: "mode", Detail: "rank 0 said " + mode, Codes: []reason.Code{reason.ArmModeMismatch}}},
		Reasons:  []reason.Reason{{Code: reason.ArmModeMismatch, Arm: "a", Detail: "last log line: " + mode}}}
	var b strings.Builder
	if err := e.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `terminal=\x1b[2J\x1b]0;accepted\x07`) {
		t.Errorf("text report:\n%q", out)
	}
	width := -1
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "|") || strings.HasPrefix(line, "+") {
			if n := utf8.RuneCountInString(line); width < 0 {
				width = n
			} else if n != width {
				t.Errorf("table line of %d columns, the first had %d:\n%s", n, width, out)
			}
		}
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Evidence
	if err := json.Unmarshal(data, &back); err != nil || back.Reasons[0].Detail != "last log line: "+mode {
		t.Errorf("the JSON changed the detail: %q (%v)", back.Reasons[0].Detail, err)
	}
}
