package arms

import (
	"os"
	"testing"

	"github.com/abbench/abbench/internal/proctree"
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
