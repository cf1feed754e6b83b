package ranks

import (
	"encoding/json"
	"os"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/parallel"
	"github.com/abbench/abbench/internal/rundir"
)

// StartEach runs start for every rank from every core, recording each
// error as that rank's StartErr: with thousands of ranks, one fork after
// another cost seconds, while a shell starting the same processes took
// one.
func StartEach(rs []*Rank, start func(*Rank) error) {
	parallel.Each(len(rs), func(i int) { rs[i].StartErr = start(rs[i]) })
}

// WriteLaunch writes the launch file of r in the launch directory of
// coord, which it makes: the rank wrapper of a rank started elsewhere
// (an srun task, a pod, a container) reads its command, environment and
// log there. The file holds the rank's whole environment, secrets too:
// readable by its owner only, and removed at teardown.
func WriteLaunch(coord string, r *Rank) error {
	return writeLaunch(coord, r, "")
}

// writeLaunch is WriteLaunch, the rank's working directory dir unless "".
func writeLaunch(coord string, r *Rank, dir string) error {
	if err := os.MkdirAll(rundir.LaunchDirOf(coord), 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(rundir.Launch{Argv: r.Argv, Env: r.Env, Log: r.Log, Dir: dir})
	if err != nil {
		return err
	}
	return atomicfile.Publish(rundir.LaunchPath(coord, r.Role, r.Index), data, 0o600)
}

// LaunchElsewhere readies a rank started elsewhere (an srun task, a pod),
// which writes its log through a path of its own: its log opened, its
// scope recorded (OpenLog), and its launch file written.
func LaunchElsewhere(coord string, r *Rank) error {
	return LaunchElsewhereIn(coord, r, "")
}

// LaunchElsewhereIn is LaunchElsewhere for a rank whose wrapper enters
// its working directory dir itself (its container's runtime does not).
func LaunchElsewhereIn(coord string, r *Rank, dir string) error {
	if err := r.TouchLog(); err != nil {
		return err
	}
	return writeLaunch(coord, r, dir)
}
