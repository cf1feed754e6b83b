package arms

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/proctree"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// TestControllerStartOnlyOfTheParent: the guard bounds its sweep by its
// controller's start only while the controller is its parent; for any
// other pid (the controller gone, its pid perhaps reused) it reads every
// environment (0), never a later process's start, which would hide the
// run's processes from the sweep.
func TestControllerStartOnlyOfTheParent(t *testing.T) {
	parent := os.Getppid()
	if got, want := controllerStart(parent), proctree.StartTime(parent); got != want || got == 0 {
		t.Errorf("controllerStart(parent %d) = %d, want its start %d", parent, got, want)
	}
	if got := controllerStart(os.Getpid()); got != 0 {
		t.Errorf("controllerStart(pid %d, not the parent) = %d, want 0", os.Getpid(), got)
	}
}

// TestSweepsReadLaterProcessesOnlyForATokenOfTheirOwn: a controller that
// made its token bounds its sweeps by its own start; one given a token
// (which an earlier process may carry) reads every environment.
func TestSweepsReadLaterProcessesOnlyForATokenOfTheirOwn(t *testing.T) {
	c := bareController(t, unitScenario)
	if want := proctree.StartTime(os.Getpid()); c.since != want || want == 0 {
		t.Errorf("a controller with a token of its own sweeps from %d, want its start %d", c.since, want)
	}
	given, err := newController(loadScenario(t, unitScenario), "a", Options{Out: t.TempDir(), Token: NewToken(), Self: os.Args[0], Inherited: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if given.since != 0 {
		t.Errorf("a controller given its token sweeps from %d, want 0 (every process)", given.since)
	}
}

// TestGuardSweepsUnlessTheControllerSweptClean: the guard of a run whose
// status says the controller ended it with nothing left skips its scan;
// any other status (the teardown begun but not its sweep, processes left
// at the end) is swept: the run's process is killed.
func TestGuardSweepsUnlessTheControllerSweptClean(t *testing.T) {
	ended := time.Now().UTC()
	for _, tc := range []struct {
		name string
		st   rundir.Status
	}{
		{"killed in the teardown, before its sweep", rundir.Status{State: rundir.StateSucceeded, Phase: "teardown"}},
		{"ended with processes left", rundir.Status{State: rundir.StateFailed, Phase: "done", Ended: ended,
			Reasons: []reason.Reason{reason.New(reason.UncleanShutdown, "processes [1] of the run survived SIGKILL")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token, attempt := NewToken(), t.TempDir()
			tc.st.Token = token
			if err := rundir.WriteStatus(attempt, &tc.st); err != nil {
				t.Fatal(err)
			}
			rank := exec.Command("sleep", "60")
			rank.Env = []string{rankwrap.EnvToken + "=" + token}
			if err := rank.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rank.Process.Kill() })
			exited := make(chan error, 1)
			go func() { exited <- rank.Wait() }()
			// Not its parent: the controller is gone, every environment is read.
			if err := Guard(nil, token, attempt, os.Getpid(), ""); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatal("the guard left the run's process alive")
			}
		})
	}
	if !sweptClean(&rundir.Status{State: rundir.StateSucceeded, Phase: "done", Ended: ended}) {
		t.Error("a run its controller ended with nothing left is swept again")
	}
}

// TestGuardOfAControllerKilledAsItStarted: a controller that dies while
// its guard is still starting (a setup hook's, a moment after the run
// began) is still swept after: the run's process is killed and the
// attempt marked interrupted. A guard told by a parent-death signal died
// of it before it could catch it, and left the run's processes running.
func TestGuardOfAControllerKilledAsItStarted(t *testing.T) {
	skipShort(t)
	for i := range 5 { // a race lost at times: more than once
		token, attempt := NewToken(), t.TempDir()
		if err := rundir.WriteStatus(attempt, &rundir.Status{Token: token, State: rundir.StateRunning, Phase: "setup", Arm: "a"}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { proctree.Kill(Survivors(token)) })
		if out, err := exec.Command(os.Args[0], "guard-starter", token, attempt).CombinedOutput(); err != nil {
			t.Fatalf("the controller: %v: %s", err, out)
		}
		for deadline := time.Now().Add(10 * time.Second); len(Survivors(token)) > 0; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("try %d: the guard left the run's process alive 10s after its controller died", i)
			}
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			st, err := rundir.ReadStatus(attempt)
			if err == nil && st.State == rundir.StateInterrupted {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("try %d: the attempt still says %v (%v)", i, st, err)
			}
		}
	}
}
