package oci

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Pin pins every container role of s as pins (a plan's) say, from the
// images written out in images: on a node, where no docker need be, what
// the plan pinned is what runs. A role the plan did not pin, or whose
// image was never written out, is refused, naming it.
func Pin(s *scenarios.Scenario, pins []rundir.ContainerImage, images string) error {
	for i := range s.Roles {
		r := &s.Roles[i]
		c := r.Container
		if c == nil {
			continue
		}
		pin := scenarios.PinOf(pins, r.Name)
		if pin == nil {
			return fmt.Errorf("role %s runs in image %s, and its ranks are Slurm's containers: they run the image a plan pinned and wrote out (abbench run --launcher slurm does both); run it with --plan", r.Name, c.Image)
		}
		if pin.Image != c.Image {
			return fmt.Errorf("role %s: the plan pinned image %q to %q, but the scenario names image %q: run the scenario the plan was made from, or plan again", r.Name, pin.Image, pin.Digest, c.Image)
		}
		img, err := Read(images, pin.Digest)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("role %s: image %s pinned to %s: %w (no %s): abbench run --launcher slurm writes it out before the first run", r.Name, pin.Image, pin.Digest, ErrNotMade, Dir(images, pin.Digest))
		} else if err != nil {
			return fmt.Errorf("role %s: %w", r.Name, err)
		}
		c.Digest, c.Entrypoint, c.Images = img.Digest, img.Entrypoint, images
	}
	return nil
}
