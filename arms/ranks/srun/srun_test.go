package srun

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/arms/ranks"
	"github.com/abbench/abbench/arms/ranks/rankstest"
	"github.com/abbench/abbench/scenarios"
)

// TestContract: each role an srun step, from inside a Slurm allocation
// whose nodes share TMPDIR (the runs' directories, the rank program and
// the wrapper are made there): salloc -N1 go test -run TestContract
// ./arms/ranks/srun/.
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Slurm allocation's steps: go test without -short runs it")
	}
	if os.Getenv("SLURM_JOB_NODELIST") == "" {
		t.Skip("srun steps need a Slurm allocation: run this test inside one (salloc -N1 go test -run TestContract ./arms/ranks/srun/)")
	}
	program, wrapper := rankstest.Programs(t, "../../..")
	token := "srun-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			d, err := New(&scenarios.Scenario{}, dir, rankstest.Coord(t, dir), []string{wrapper, "--"})
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		Program: []string{program},
		RankEnv: rankstest.WrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			// The task's own process (srun's would end the whole step); the
			// allocation is this host's.
			if err := syscall.Kill(rankstest.RegisteredPID(t, r), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		},
		Timeout: time.Minute,
	})
}
