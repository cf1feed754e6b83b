package srun

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
	"github.com/abbench/abbench/internal/scenarios"
)

// TestContract: each role an srun step, from inside a Slurm allocation
// whose nodes share TMPDIR (the runs' directories, the rank program and
// the wrapper are made there), with a CPU for each rank of the suite's
// roles at once: salloc -N1 --exclusive go test -run TestContract
// ./internal/arms/ranks/srun/ (.ci/run runs it on the Slurm dev cluster).
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("a real Slurm allocation's steps: go test without -short runs it")
	}
	if os.Getenv("SLURM_JOB_NODELIST") == "" {
		t.Skip("srun steps need a Slurm allocation: run this test inside one (salloc -N1 go test -run TestContract ./internal/arms/ranks/srun/)")
	}
	program, wrapper := rankstest.Programs(t, "../../../..")
	token := "srun-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			d, err := New(&scenarios.Scenario{}, dir, rankstest.Coord(t, dir), []string{wrapper, "--"}, Containers{})
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
		Timeout:      time.Minute,
		EndsWithStep: true,
	})
}

// TestEveryRankEndedOnceStopReturns: when Stop returns, every rank of a
// step that ended has its exit recorded, so that the controller judging
// them at once never reads "did not end" (the step was marked done
// before its ranks' ends were, and teardown censored an accepted run
// unclean-shutdown now and then). srun and scontrol are stand-ins here:
// the step is a process that ends on SIGTERM.
func TestEveryRankEndedOnceStopReturns(t *testing.T) {
	bin := t.TempDir()
	for name, body := range map[string]string{
		"scontrol": "#!/bin/sh\necho node1\n",
		"srun":     "#!/bin/sh\ntrap 'exit 0' TERM\nsleep 30 & wait\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("SLURM_JOB_NODELIST", "node1")
	// Five tries under go test -short, not 30: each starts and signals a
	// step of shells, most of this package's quick-loop CPU.
	tries := 30
	if testing.Short() {
		tries = 5
	}
	for i := range tries {
		dir := t.TempDir()
		coord := filepath.Join(dir, "coord")
		d, err := New(&scenarios.Scenario{}, dir, coord, []string{"wrapper", "--"}, Containers{})
		if err != nil {
			t.Fatal(err)
		}
		role := &scenarios.Role{Name: "gen", Ranks: 2, Command: []string{"true"}}
		rs := []*ranks.Rank{ranks.NewRank("gen", 0, filepath.Join(dir, "gen-0.log"), nil), ranks.NewRank("gen", 1, filepath.Join(dir, "gen-1.log"), nil)}
		if err := d.Start(role, rs); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the stand-in's trap is set
		d.Stop(5*time.Second, 10*time.Second)
		for _, r := range rs {
			if !r.Ended() {
				t.Fatalf("try %d: %s had not ended when Stop returned: %s", i, r.Name(), r.Exit().Reason)
			}
		}
	}
}
