package arms

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// TestRanksNamesEveryDriver: --ranks takes every driver's name and
// refuses any other with a typed error that lists them all; the default
// is local.
func TestRanksNamesEveryDriver(t *testing.T) {
	names := RankDrivers()
	if len(names) != 3 || names[0] != RanksLocal {
		t.Fatalf("drivers %q, want local first", names)
	}
	for _, n := range append(names, "") {
		if err := CheckRanks(n); err != nil {
			t.Errorf("--ranks %q: %v", n, err)
		}
	}
	err := CheckRanks("flux")
	var unknown *UnknownRanksError
	if !errors.As(err, &unknown) || unknown.Name != "flux" || err.Error() != `ranks "flux": choose local, srun or kubernetes` {
		t.Fatalf("--ranks flux: %v", err)
	}
	for _, n := range names {
		if !strings.Contains(RanksHelp(), n+" (") {
			t.Errorf("--ranks's help %q does not say %s", RanksHelp(), n)
		}
	}
}

// TestRoleThatCouldNotStartEndsItsRanksAtOnce: an srun step that could
// not be started (no srun here) ends its ranks at once, as never
// started: teardown waits for none of them, kills none, and the run
// fails with launch-failed alone. Before, the ranks of a step that never
// started never ended: teardown waited out the grace and the teardown
// deadline, and recorded each as killed.
func TestRoleThatCouldNotStartEndsItsRanksAtOnce(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "scontrol"), []byte("#!/bin/sh\necho node1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_JOB_NODELIST", "node1")
	t.Setenv("PATH", bin)
	res, err := Run(context.Background(), loadScenario(t, unitScenario), "a", Options{Out: t.TempDir(), Self: os.Args[0], Ranks: RanksSrun})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Status
	if st.State != rundir.StateFailed || codes(st) != string(reason.LaunchFailed) || !strings.Contains(st.Reasons[0].Detail, "starting role server as an srun step: ") {
		t.Fatalf("%s %v: want launch-failed starting the srun step", st.State, st.Reasons)
	}
	if len(st.Ranks) != 2 {
		t.Fatalf("ranks %+v: want server's two", st.Ranks)
	}
	for _, r := range st.Ranks {
		if !r.Exited || r.Killed || r.ExitCode != -1 {
			t.Errorf("rank %s-%d: exited %v, killed %v, status %d: want ended, never started, not killed", r.Role, r.Rank, r.Exited, r.Killed, r.ExitCode)
		}
	}
}

// TestStatusRecordsWhatTheDriverReports: each rank's status holds what
// its driver reported of it: the image it ran by digest, its process,
// whether it was killed, and its exit.
func TestStatusRecordsWhatTheDriverReports(t *testing.T) {
	c := unitController(t, unitScenario)
	p := addRank(t, c, "server", 0, "")
	p.SetImage("abbench@sha256:aaaa")
	p.SetPID(4242)
	p.Kill()
	p.End(ranks.Exited(143))
	addRank(t, c, "server", 1, "")
	c.writeStatus()
	got, running := c.status.Ranks[0], c.status.Ranks[1]
	if got.ImageID != "abbench@sha256:aaaa" || got.PID != 4242 || !got.Killed || !got.Exited || got.ExitCode != 143 {
		t.Errorf("status %+v", got)
	}
	if running.ImageID != "" || running.Exited || running.ExitCode != -1 {
		t.Errorf("a running rank's status %+v", running)
	}
}
