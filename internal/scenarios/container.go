package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/rundir"
)

// RuntimeDocker is the container runtime of the local launcher, and the
// default of container.runtime.
const RuntimeDocker = "docker"

// Container runs every rank of a role in a container of Image: docker's
// under the local launcher; under the Slurm launcher, Slurm's container of
// the image written out for the plan (container/oci).
type Container struct {
	// Image names the image as the runtime knows it (a tag, or an ID).
	// It is resolved to its content digest before the first run, and
	// every run starts its containers from that digest.
	Image string `yaml:"image" json:"image"`
	// Mounts are bind mounts SRC:DST or SRC:DST:ro (SRC relative to the
	// scenario file); the run directory and the scratch directory are
	// always mounted, at their own paths.
	Mounts  []string `yaml:"mounts" json:"mounts"`
	Runtime string   `yaml:"runtime" json:"runtime"`
	// Digest is the content digest Image was pinned to (Pin): never
	// written in a scenario, it is part of the matched digest, so runs
	// of two images under one name do not match.
	Digest string `yaml:"-" json:"digest"`
	// Entrypoint is the image's own, which each rank's command follows
	// as docker run IMAGE COMMAND would; the digest covers it.
	Entrypoint []string `yaml:"-" json:"-"`
	// Images is the directory the image was written out in for Slurm's
	// containers (its root filesystem and ENV, by its digest: oci.Pin),
	// empty under docker.
	Images string `yaml:"-" json:"-"`
}

// Mount is one of Container.Mounts, its source resolved.
type Mount struct {
	Source, Target string
	ReadOnly       bool
}

// ParseMount reads SRC:DST or SRC:DST:ro|rw; SRC is resolved against the
// scenario's directory.
func (s *Scenario) ParseMount(m string) (Mount, error) {
	parts := strings.Split(m, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Mount{}, fmt.Errorf("mount %q: give SOURCE:TARGET or SOURCE:TARGET:ro", m)
	}
	mt := Mount{Source: s.Path(parts[0]), Target: parts[1]}
	if !strings.HasPrefix(mt.Target, "/") {
		return Mount{}, fmt.Errorf("mount %q: the target %q must be an absolute path inside the container", m, mt.Target)
	}
	if len(parts) == 3 {
		switch parts[2] {
		case "ro":
			mt.ReadOnly = true
		case "rw":
		default:
			return Mount{}, fmt.Errorf("mount %q: %q is no mount option: give ro or rw", m, parts[2])
		}
	}
	return mt, nil
}

// HasContainers says whether a role runs in a container.
func (s *Scenario) HasContainers() bool {
	return slices.ContainsFunc(s.Roles, func(r Role) bool { return r.Container != nil })
}

// Pinned lists every container role's image as pinned, in role order
// (Digest empty where Pin has not run).
func (s *Scenario) Pinned() []rundir.ContainerImage {
	var out []rundir.ContainerImage
	for _, r := range s.Roles {
		if c := r.Container; c != nil {
			out = append(out, rundir.ContainerImage{Role: r.Name, Runtime: c.Runtime, Image: c.Image, Digest: c.Digest})
		}
	}
	return out
}

// PinOf is the pin of role among pins (a plan's or a run's), or nil.
func PinOf(pins []rundir.ContainerImage, role string) *rundir.ContainerImage {
	for i := range pins {
		if pins[i].Role == role {
			return &pins[i]
		}
	}
	return nil
}

// WithPins is s with every container role not pinned yet pinned as pins
// say (a run's record: re-deriving its evidence holds it to the images it
// ran): s itself when none needs it, else a copy. A role pins do not name
// stays unpinned, and its matched digest then matches no run's.
func (s *Scenario) WithPins(pins []rundir.ContainerImage) *Scenario {
	need := slices.ContainsFunc(s.Roles, func(r Role) bool {
		return r.Container != nil && r.Container.Digest == "" && PinOf(pins, r.Name) != nil
	})
	if !need {
		return s
	}
	c := *s
	c.Roles = slices.Clone(s.Roles)
	for i := range c.Roles {
		r := &c.Roles[i]
		if r.Container == nil || r.Container.Digest != "" {
			continue
		}
		if pin := PinOf(pins, r.Name); pin != nil && pin.Image == r.Container.Image {
			cc := *r.Container
			cc.Digest = pin.Digest
			r.Container = &cc
		}
	}
	return &c
}
