package srun

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/container/oci"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Ranks of a role with container: run in Slurm's containers of the role's
// pinned image, written out for the plan (container/oci): with srun
// --container and oci.conf's runtime, or pyxis's --container-image where
// srun has it. Slurm 22.05 runs one task a node in a container, so each
// rank is a step of its own, of one task. Slurm sets no SLURM_PROCID in
// the container: the wrapper is told its rank, reads its launch file, and
// builds the rank's environment as in a docker container: the image's
// ENV (the bundle's), less every arm key, then the launch file's. The
// step exports nothing of the controller's (--export=NONE): Slurm appends
// the step's environment to the bundle's, and a key in both (PATH) would
// be in the container twice, the controller's value read by a program
// that takes the last (a shell).

// Containers is what the driver needs to run roles with container:.
type Containers struct {
	// Wrapper is this host's static abbench-rank, mounted read-only at
	// container.WrapperPath in every container.
	Wrapper string
	// Pyxis says srun takes pyxis's options (oci.Pyxis): the image goes
	// to --container-image, not --container.
	Pyxis bool
}

// containerSteps are the srun arguments of each rank of a container role:
// one step a rank.
func (d *Driver) containerSteps(r *scenarios.Role, rs []*ranks.Rank) ([][]string, error) {
	img, err := oci.Read(r.Container.Images, r.Container.Digest)
	if err != nil {
		return nil, fmt.Errorf("role %s: image %s: %w", r.Name, r.Container.Image, err)
	}
	if rel, err := filepath.Rel(img.Shared, d.dir); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("role %s: the run directory %s is not in %s, the directory the bundle of image %s mounts", r.Name, d.dir, img.Shared, r.Container.Digest)
	}
	var image []string
	if d.containers.Pyxis {
		if d.containers.Wrapper == "" {
			return nil, fmt.Errorf("role %s runs in a container, and no static rank wrapper was found to mount in it", r.Name)
		}
		var own []container.Mount
		for _, m := range r.Container.Mounts {
			mt, err := d.s.ParseMount(m)
			if err != nil {
				return nil, err
			}
			own = append(own, container.Mount{Source: mt.Source, Target: mt.Target, ReadOnly: mt.ReadOnly})
		}
		image = pyxisArgs(img, oci.Mounts(img.Shared, d.containers.Wrapper, own), d.dir)
	} else {
		if _, err := os.Stat(img.Config()); err != nil {
			return nil, fmt.Errorf("role %s: image %s has no bundle: %w", r.Name, r.Container.Digest, err)
		}
		image = []string{"--container=" + img.Bundle()}
	}
	nodes := d.slices[r.Name]
	steps := make([][]string, len(rs))
	for i, rk := range rs {
		args := []string{"--export=NONE", "--overlap", "--ntasks=1", "--nodes=1", "--kill-on-bad-exit=0"}
		if len(nodes) > 0 {
			// The role's nodes, its ranks spread over them in order.
			args = append(args, "--nodelist="+nodes[rk.Index*len(nodes)/len(rs)])
		}
		args = append(append(args, d.common(r)...), image...)
		steps[i] = append(args, container.WrapperPath, "--", "--launch", rundir.LaunchDirOf(d.coord), r.Name, strconv.Itoa(rk.Index))
	}
	return steps, nil
}

// deviceKeys are the variables of the devices Slurm bound to a step: the
// step's win over the image's (with --container, Slurm sets the step's
// environment over the bundle's; pyxis needs them named).
var deviceKeys = []string{"CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES"}

// pyxisArgs are pyxis's options for img: its squashfs, written out beside
// its root filesystem, every mount, and the run directory.
func pyxisArgs(img oci.Image, mounts []container.Mount, dir string) []string {
	var ms []string
	for _, m := range mounts {
		v := m.Source + ":" + m.Target
		if m.ReadOnly {
			v += ":ro"
		}
		ms = append(ms, v)
	}
	return []string{"--container-image=" + img.Squashfs(), "--container-mounts=" + strings.Join(ms, ","),
		"--container-workdir=" + dir, "--container-env=" + strings.Join(deviceKeys, ","), "--no-container-mount-home", "--no-container-remap-root"}
}
