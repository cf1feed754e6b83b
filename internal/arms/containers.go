package arms

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// newContainerDriver is the docker driver of the scenario's roles with
// container:, nil when it has none or the run's --ranks driver runs them
// itself; the run's --ranks driver must allow them.
func newContainerDriver(s *scenarios.Scenario, opts Options, self, dir, coord string) (*containers.Driver, error) {
	if !s.HasContainers() {
		return nil, nil
	}
	d, err := rankDriver(opts.Ranks)
	if err == nil && d.noContainers != "" {
		return nil, errors.New(d.noContainers)
	}
	if err == nil && d.ownContainers {
		return nil, nil
	}
	return containers.New(containers.Run{Scenario: s, Token: opts.Token, Dir: dir, Coord: coord, Self: self, Docker: opts.Docker})
}

// rankBase is what a rank of r starts from: on the host, the inherited
// base keys and abbench's directory first in PATH; in a container, none
// of the host's (the image's environment stands there), and the image's
// entrypoint before the rank's command.
func (c *controller) rankBase(r *scenarios.Role) (inherited []string, selfDir string, entrypoint []string) {
	if r.Container != nil {
		return nil, "", r.Container.Entrypoint
	}
	if c.inRoleImage(r) {
		return nil, "", nil // a pod of the role's image; its command replaces the entrypoint
	}
	return c.opts.Inherited, filepath.Dir(c.self), nil
}

// startFailure is the reason a rank that could not start stops the run
// with: image-mismatch for a container of another image, else
// launch-failed.
func (c *controller) startFailure(role string, rank int, err error) reason.Reason {
	var mismatch *containers.ImageMismatchError
	if errors.As(err, &mismatch) {
		return reason.New(reason.ImageMismatch, "%s rank %d: %v", role, rank, err).At(c.arm, role, rank)
	}
	return reason.New(reason.LaunchFailed, "starting %s rank %d: %v", role, rank, err).At(c.arm, role, rank)
}

// removeContainers removes every container of the run, by its label; one
// left is unclean-shutdown, and how to remove it by hand.
func (c *controller) removeContainers() {
	if c.containers == nil {
		return
	}
	if left := containers.RemoveRun(c.containers.Docker, c.opts.Token); len(left) > 0 {
		c.fail(reason.New(reason.UncleanShutdown, "containers of the run are left: %s: remove them with docker rm --force $(docker ps --all --quiet --filter label=%s=%s)",
			strings.Join(left, "; "), container.LabelToken, c.opts.Token))
		c.status.State = rundir.StateFailed
	}
}
