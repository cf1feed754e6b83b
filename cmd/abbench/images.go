package main

import (
	"context"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/container"
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

// containersOnLauncher refuses roles with container: under a launcher
// that cannot run them.
func containersOnLauncher(s *scenarios.Scenario, launcher string) error {
	if launcher == "local" || !s.HasContainers() {
		return nil
	}
	return cli.Usagef("run it with --launcher local; on a Slurm cluster, give the image to pyxis/enroot with launcher.slurm.container_image",
		"--launcher %s: roles with container: run under the local launcher", launcher)
}

// planPins are the image pins of the plan.json at planFile.
func planPins(planFile string) ([]rundir.ContainerImage, error) {
	var p rundir.Plan
	err := rundir.ReadJSON(planFile, &p)
	return p.Containers, err
}
