package local

import (
	"syscall"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
)

func kill(t *testing.T, r *ranks.Rank) {
	if err := syscall.Kill(r.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// TestContract: local processes pass the rank drivers' contract suite,
// started directly and behind the rank wrapper, as the controller starts
// them.
func TestContract(t *testing.T) {
	program, wrapper := rankstest.Programs(t, "../../../..")
	t.Run("direct", func(t *testing.T) {
		rankstest.Run(t, rankstest.Backend{
			Open:    func(_ *testing.T, dir string) ranks.Driver { return &Driver{Dir: dir} },
			Program: []string{program},
			Kill:    kill,
		})
	})
	t.Run("behind the wrapper", func(t *testing.T) {
		token := "local-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
		rankstest.Run(t, rankstest.Backend{
			Open: func(t *testing.T, dir string) ranks.Driver {
				rankstest.Coord(t, dir)
				return &Driver{Dir: dir, Wrapper: []string{wrapper, "--"}}
			},
			Program: []string{program},
			RankEnv: rankstest.WrapperEnv(token),
			Kill:    kill,
		})
	})
}
