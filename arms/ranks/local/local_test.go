package local

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/abbench/abbench/arms/ranks"
	"github.com/abbench/abbench/arms/ranks/rankstest"
	"github.com/abbench/abbench/container/containertest"
)

// TestContract: local processes pass the rank drivers' contract suite.
func TestContract(t *testing.T) {
	bin := t.TempDir()
	if err := containertest.StaticBuild(bin, "../rankstest/rankprog"); err != nil {
		t.Fatal(err)
	}
	rankstest.Run(t, rankstest.Backend{
		Open:    func(_ *testing.T, dir string) ranks.Driver { return &Driver{Dir: dir} },
		Program: []string{filepath.Join(bin, "rankprog")},
		Kill: func(t *testing.T, r *ranks.Rank) {
			if err := syscall.Kill(r.PID(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		},
	})
}
