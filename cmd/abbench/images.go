package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/container/oci"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// pinImages pins the image of every container role of s to its digest
// before any run (container.Pin): to pins (a plan's), else to what each
// image's name names here now.
func pinImages(ctx context.Context, s *scenarios.Scenario, pins []rundir.ContainerImage) error {
	if !s.HasContainers() {
		return nil
	}
	return container.Pin(ctx, container.Docker{}, s, pins)
}

// pinStageImages pins a stage's container roles: under srun, where the
// node need not have docker, from the images its plan wrote out beside
// it (oci.Pin); else from this host's docker (pinImages).
func pinStageImages(ctx context.Context, s *scenarios.Scenario, ranks, plan string) error {
	if !s.HasContainers() {
		return nil
	}
	var pins []rundir.ContainerImage
	if plan != "" {
		var err error
		if pins, err = planPins(plan); err != nil {
			return err
		}
	}
	if ranks != arms.RanksSrun {
		return pinImages(ctx, s, pins)
	}
	if plan == "" {
		return cli.Usagef("abbench run --launcher slurm plans the campaign and writes its images out", "--ranks %s: roles with container: run the images of a plan: give --plan", ranks)
	}
	if err := oci.Pin(s, pins, filepath.Join(filepath.Dir(plan), oci.ImagesDir)); err != nil {
		return cli.Usage(err, "run the campaign with abbench run --launcher slurm: it pins each image and writes it out beside plan.json, where every stage reads it")
	}
	return nil
}

// containersOnLauncher refuses roles with container: under a launcher
// that cannot run them.
func containersOnLauncher(s *scenarios.Scenario, launcher string) error {
	if launcher == "local" || launcher == "slurm" || !s.HasContainers() {
		return nil
	}
	return cli.Usagef("run it with --launcher local or --launcher slurm",
		"--launcher %s: roles with container: run under the local and Slurm launchers", launcher)
}

// writeImages writes out every pinned image of s for Slurm's containers
// into the campaign directory out, once (oci.Make), with its bundle, and
// its squashfs where this host's srun has pyxis: the nodes read them
// there. The bundle mounts this host's static rank wrapper, at the path
// the nodes run abbench from (the campaign's jobs run this executable).
func writeImages(ctx context.Context, s *scenarios.Scenario, launcher, out string) error {
	if launcher != "slurm" || !s.HasContainers() {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	wrapper, err := containers.StaticWrapper(self)
	if err != nil {
		return err
	}
	d := container.Docker{}
	done := map[string]bool{}
	for _, r := range s.Roles {
		if r.Container == nil || done[r.Container.Digest] {
			continue
		}
		done[r.Container.Digest] = true
		own, err := imageMounts(s, r.Container.Digest)
		if err != nil {
			return err
		}
		var points []string
		for _, m := range own {
			points = append(points, m.Target)
		}
		inspected, err := d.Inspect(ctx, r.Container.Digest)
		if err != nil {
			return err
		}
		img, err := oci.Make(ctx, d, filepath.Join(out, oci.ImagesDir), inspected, out, points)
		if err != nil {
			return err
		}
		b := oci.Bundle{Image: img, UID: os.Getuid(), GID: os.Getgid(), Mounts: oci.Mounts(out, wrapper, own)}
		if err := b.Write(); err != nil {
			return err
		}
		if oci.Pyxis() {
			if err := oci.Squash(ctx, img); err != nil {
				return err
			}
		}
	}
	return nil
}

// imageMounts are the own mounts of every role of s that runs in the
// image digest, each target once: one bundle serves them all.
func imageMounts(s *scenarios.Scenario, digest string) ([]container.Mount, error) {
	var own []container.Mount
	for _, r := range s.Roles {
		if r.Container == nil || r.Container.Digest != digest {
			continue
		}
		for _, m := range r.Container.Mounts {
			mt, err := s.ParseMount(m)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(own, func(o container.Mount) bool { return o.Target == mt.Target }) {
				own = append(own, container.Mount{Source: mt.Source, Target: mt.Target, ReadOnly: mt.ReadOnly})
			}
		}
	}
	return own, nil
}

// planPins are the image pins of the plan.json at planFile.
func planPins(planFile string) ([]rundir.ContainerImage, error) {
	var p rundir.Plan
	err := rundir.ReadJSON(planFile, &p)
	return p.Containers, err
}
