package containers

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/rankstest"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/container/containertest"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// The container driver passes the rank drivers' contract suite as the
// controller uses it, behind the rank wrapper.

// TestContract: each rank a container of an image FROM
// scratch holding the rank program, with the static rank wrapper mounted
// as its entrypoint. Without a docker daemon it skips (fails in CI).
func TestContract(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an image and runs containers: go test without -short runs it")
	}
	tag, _ := containertest.StaticImage(t, "rankprog", "FROM scratch\nCOPY rankprog /rankprog\n", "../rankstest/rankprog")
	ctx := context.Background()
	img, err := container.Docker{}.Inspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	_, wrapper := rankstest.Programs(t, "../../../..")
	token := "container-contract-" + time.Now().UTC().Format("20060102T150405.000000000")
	scratch := rundir.Scratch(token)
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	d := container.Docker{Env: DockerEnv()}
	t.Cleanup(func() {
		if left := RemoveRun(d, token); len(left) > 0 {
			t.Errorf("containers of the run are left: %v", left)
		}
		_ = os.RemoveAll(scratch) // the temporary directory's, named by the token
	})
	rankstest.Run(t, rankstest.Backend{
		Open: func(t *testing.T, dir string) ranks.Driver {
			coord := rankstest.Coord(t, dir)
			return &Driver{Docker: d, rankBinary: wrapper, s: &scenarios.Scenario{}, token: token, dir: dir, coord: coord}
		},
		Role:    func(r *scenarios.Role) { r.Container = &scenarios.Container{Image: tag, Digest: img.ID} },
		Program: []string{"/rankprog"},
		RankEnv: rankstest.WrapperEnv(token),
		Kill: func(t *testing.T, r *ranks.Rank) {
			if err := d.Signal(ctx, "KILL", ContainerName(token, r.Role, r.Index)); err != nil {
				t.Fatal(err)
			}
		},
		Timeout: time.Minute,
	})
}
