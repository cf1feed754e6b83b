package campaign

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
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
