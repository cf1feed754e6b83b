package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/reason"
)

// attachedYAML adds an attached server whose /metrics says its mode.
var attachedYAML = strings.Replace(scenarioYAML, "roles:\n", `attach:
  - name: server
    arms:
      async: {url: 'http://127.0.0.1:1'}
      blocking: {url: 'http://127.0.0.1:2'}
    probe: {path: /metrics, pattern: 'cfg\{mode="(?P<TERM_MODE>\d)"\}'}
roles:
`, 1)

// probeFiles are a run's probes of the attached server, its answer before
// the client saying mode.
func probeFiles(mode string) map[string]string {
	before := attachprobe.FileOf("server", attachprobe.Before)
	return map[string]string{
		before: fmt.Sprintf("# the server's own\ncfg{mode=%q} 1\n", mode),
		attachprobe.RecordFile: fmt.Sprintf(`{"schema": %q, "probes": [{"name": "server", "when": "before", "url": "http://127.0.0.1:1/metrics", "file": %q, "want": {"TERM_MODE": "1"}}]}`,
			attachprobe.Schema, before),
	}
}

// The evidence reads the attached server's answer before the client
// again, from the run's own files: the arm's value is accepted and kept
// (with the answer an input, so the bundle signs it); an answer edited to
// the other arm's value, or no record of the probe at all, is
// arm-mode-mismatch, whatever the controller said.
func TestAttachedServerAnswerIsReadAgain(t *testing.T) {
	r := goodRun()
	r.yaml = attachedYAML
	r.files = probeFiles("1")
	e := r.collect(t)
	if !e.Accepted || len(e.Attached) != 1 || e.Attached[0].Values["TERM_MODE"] != "1" || !strings.Contains(strings.Join(e.Inputs, " "), "attach/server-before.body") {
		t.Fatalf("the arm's answer: accepted %v, reasons %v, attached %+v, inputs %v", e.Accepted, e.Reasons, e.Attached, e.Inputs)
	}
	r.files = probeFiles("0")
	e = r.collect(t)
	if e.Accepted || codesOf(e.Reasons) != "arm-mode-mismatch" || !strings.Contains(e.Reasons[0].Detail, `http://127.0.0.1:1/metrics answered before the client, in attach/server-before.body: answered TERM_MODE="0" where the arm sets "1"`) {
		t.Fatalf("the other arm's answer: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.files = nil
	if e := r.collect(t); e.Accepted || e.Reasons[0].Code != reason.ArmModeMismatch || !strings.Contains(e.Reasons[0].Detail, "the run has attached servers, but no probe of them was recorded") {
		t.Fatalf("no probe: reasons %v", e.Reasons)
	}
}
