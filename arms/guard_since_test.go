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
