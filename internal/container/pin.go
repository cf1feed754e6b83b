package container

import (
	"context"
	"errors"
	"fmt"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Pin pins the image of every container role of s to a content digest:
// the one pins name for the role (a plan's, made before its first run),
// which this host must have, else the one the role's image names here
// now. It reads each image's entrypoint, which every rank's command
// follows. An error names the role, the image and what to do; where a
// plan's pinned image is gone but its name names another, it names both
// digests: two images under one name.
func Pin(ctx context.Context, d Docker, s *scenarios.Scenario, pins []rundir.ContainerImage) error {
	for i := range s.Roles {
		r := &s.Roles[i]
		c := r.Container
		if c == nil {
			continue
		}
		pin := scenarios.PinOf(pins, r.Name)
		if pin == nil {
			img, err := d.Inspect(ctx, c.Image)
			if errors.Is(err, ErrNoImage) {
				return fmt.Errorf("role %s runs in image %s, which this host does not have: build it or load it (docker build, docker load) first: abbench never pulls one", r.Name, c.Image)
			} else if err != nil {
				return fmt.Errorf("role %s: resolving image %s to its digest: %w", r.Name, c.Image, err)
			}
			c.Digest, c.Entrypoint = img.ID, img.Entrypoint
			continue
		}
		if pin.Image != c.Image || !IsDigest(pin.Digest) {
			return fmt.Errorf("role %s: the plan pinned image %q to %q, but the scenario names image %q: run the scenario the plan was made from, or plan again", r.Name, pin.Image, pin.Digest, c.Image)
		}
		img, err := d.Inspect(ctx, pin.Digest)
		if errors.Is(err, ErrNoImage) {
			return missingPin(ctx, d, r.Name, pin)
		} else if err != nil {
			return fmt.Errorf("role %s: image %s pinned to %s: %w", r.Name, pin.Image, pin.Digest, err)
		}
		c.Digest, c.Entrypoint = img.ID, img.Entrypoint
	}
	return nil
}

// missingPin is the error of a pinned image this host lacks, naming what
// its name names here, if anything.
func missingPin(ctx context.Context, d Docker, role string, pin *rundir.ContainerImage) error {
	now, err := d.Inspect(ctx, pin.Image)
	if err == nil {
		return fmt.Errorf("role %s: the plan pinned image %s to %s, which this host does not have; here %s is %s: two images under one name, and every run of the plan runs the pinned one: load it (docker load), or plan again to run the other", role, pin.Image, pin.Digest, pin.Image, now.ID)
	}
	return fmt.Errorf("role %s: the plan pinned image %s to %s, which this host does not have (nor any image %s): load it (docker load) first", role, pin.Image, pin.Digest, pin.Image)
}
