package rankwrap

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/arms/ranks"
)

// A program not on the rank's PATH is named first, the PATH after it cut
// to its first directories and a count, and the question last: a PATH of
// a dozen directories took the whole log line, and a summary that cuts
// the line kept the PATH and lost the name; the question names it again,
// since a summary that cuts a long reason's middle keeps its tail. Its rank's exit says that
// the program never started.
func TestNotFoundNamesTheProgramBeforeAShortPath(t *testing.T) {
	path := strings.Repeat("/opt/some/long/tool/bin:", 12) + "/usr/bin"
	_, err := LookPath("disaggsm-no-such-program", path)
	if err == nil {
		t.Fatal("found a program that is nowhere")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `"disaggsm-no-such-program" not found in the rank's PATH (`) || !strings.Contains(msg, "and 10 more") || len(msg) > 240 || !strings.HasSuffix(msg, `is "disaggsm-no-such-program" misspelled, or not installed where the rank runs?`) {
		t.Errorf("said %q (%d bytes)", msg, len(msg))
	}
	if r := ranks.Exited(127).Reason; !strings.HasPrefix(r, "exited with status 127 (its program could not be started") {
		t.Errorf("status 127 said as %q", r)
	}
	if r := ranks.Exited(3).Reason; r != "exited with status 3" {
		t.Errorf("status 3 said as %q", r)
	}
}
