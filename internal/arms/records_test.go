package arms

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

func TestAFailedStatusWriteIsKeptUntilOneWorks(t *testing.T) {
	c := unitController(t, unitScenario)
	c.dir = t.TempDir() // status.json alone: unwritable keeps only files
	c.secrets.Add("hunter2-secret")
	c.fail(reason.New(reason.RankExited, "server said: password hunter2-secret refused"))
	undo := unwritable(t, c.dir)
	c.writeStatus()
	c.writeStatus()
	if c.statusErr == nil {
		t.Fatal("a write into a read-only directory worked")
	}
	if got := reasonsByRank(c.status.Reasons)[""]; len(got) != 2 || got[1] != reason.WriteFailed {
		t.Fatalf("reasons %v: want the one failure recorded once", got)
	}
	undo()
	c.writeStatus()
	if c.statusErr != nil {
		t.Fatalf("a write that works again: %v", c.statusErr)
	}
	st, err := rundir.ReadStatus(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Reasons) != 2 || st.Reasons[1].Code != reason.WriteFailed {
		t.Fatalf("status.json reasons %v: want the failed write recorded", st.Reasons)
	}
	data, _ := os.ReadFile(filepath.Join(c.dir, rundir.StatusFile))
	if strings.Contains(string(data), "hunter2-secret") {
		t.Fatal("status.json holds a secret value in clear")
	}
}
