package rankstest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/container/containertest"
	"github.com/abbench/abbench/internal/rundir"
)

// A driver runs the suite as the controller uses it: behind the rank
// wrapper (abbench-rank), which registers each rank in the run's
// coordination directory before it runs the rank's command.

// Programs builds the rank program and the rank wrapper statically into a
// directory kept between test runs (linked again only when their sources
// changed); root is the module's root, relative to the test's package. It
// returns the paths of rankprog and abbench-rank, for running only.
func Programs(t *testing.T, root string) (program, wrapper string) {
	t.Helper()
	bin, err := containertest.StaticBinaries(filepath.Join(root, "internal/arms/ranks/rankstest/rankprog"), filepath.Join(root, "cmd/abbench-rank"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(bin, "rankprog"), filepath.Join(bin, "abbench-rank")
}

// Coord makes what the rank wrapper needs of a run in dir (its
// coordination directory) and returns it.
func Coord(t *testing.T, dir string) string {
	t.Helper()
	coord := rundir.Coord(dir)
	for _, sub := range []string{rundir.RanksDir, rundir.MachinesDir} {
		if err := os.MkdirAll(filepath.Join(coord, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return coord
}

// WrapperEnv is what the rank wrapper reads of a rank's environment, for
// Backend.RankEnv: the run's coordination directory, the rank's names and
// the run's token.
func WrapperEnv(token string) func(dir string, r *ranks.Rank) []string {
	return func(dir string, r *ranks.Rank) []string {
		return []string{rankwrap.EnvCoord + "=" + rundir.Coord(dir), rankwrap.EnvRole + "=" + r.Role,
			rankwrap.EnvRank + "=" + strconv.Itoa(r.Index), rankwrap.EnvToken + "=" + token}
	}
}

// RegisteredPID is the pid rank r registered with (the rank's own
// process, wherever its driver started it).
func RegisteredPID(t *testing.T, r *ranks.Rank) int {
	t.Helper()
	reg, ok, err := rundir.ReadRegistration(rundir.Coord(filepath.Dir(r.Log)), r.Role, r.Index)
	if !ok || err != nil {
		t.Fatalf("rank %s has no registration (%v)", r.Name(), err)
	}
	return reg.PID
}
