package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// A campaign stops early on the exit status its status records for the
// rank (127 or 126), whatever the reason's words: a rank that exited 1
// with "exited with status 127" as its last log line runs on, and a 127
// said in other words stops it.
func TestHopelessReadsTheExitStatusNotTheWords(t *testing.T) {
	run := func(exit int, detail string) *Run {
		rank := 0
		return &Run{Status: &rundir.Status{
			Reasons: []reason.Reason{{Code: reason.RankExited, Role: "client", Rank: &rank, Detail: detail}},
			Ranks:   []rundir.RankStatus{{Role: "server", Rank: 0, Exited: true, ExitCode: 0}, {Role: "client", Rank: 0, Exited: true, ExitCode: exit}},
		}}
	}
	for _, c := range []struct {
		exit   int
		detail string
		want   string
	}{
		{1, "client client rank 0 exited with status 1; last log line: sh: exited with status 127", ""},
		{1, "client client rank 0 exited with status 1; last log line: open x: no such file or directory", ""},
		{127, "client client rank 0 ended (code 127) in other words", "(127: command not found)"},
		{126, "client client rank 0 could not run", "(126: not executable)"},
		{0, "client client rank 0 exited with status 127", ""},
	} {
		got := hopeless(run(c.exit, c.detail))
		if c.want == "" && got != "" || c.want != "" && !strings.HasSuffix(got, c.want) {
			t.Errorf("exit %d, detail %q: hopeless %q, want %q", c.exit, c.detail, got, c.want)
		}
	}
}

// A run whose client got not one connection (a url on a wrong port) stops
// the campaign: its record counts every request a connect failure. One
// that reached the server for some requests, or failed them otherwise,
// runs on.
func TestNoConnectionIsHopeless(t *testing.T) {
	run := func(completed int, kinds string) *Run {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, scenarios.OpenAIResult), []byte(`{"failure_kinds": `+kinds+`}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return &Run{Status: &rundir.Status{Dir: dir}, Evidence: &evidence.Evidence{
			Throughput: &evidence.Record{File: scenarios.OpenAIResult, Completed: completed, Failed: 4 - completed}}}
	}
	if got := hopeless(run(0, `{"connect": 4}`)); !strings.Contains(got, "not one of its 4 requests got a connection") {
		t.Errorf("every request refused: hopeless %q", got)
	}
	for _, c := range []struct {
		completed int
		kinds     string
	}{{0, `{"connect": 3, "http": 1}`}, {0, `{"http": 4}`}, {1, `{"connect": 3}`}} {
		if got := hopeless(run(c.completed, c.kinds)); got != "" {
			t.Errorf("%d completed, failures %s: hopeless %q", c.completed, c.kinds, got)
		}
	}
}
