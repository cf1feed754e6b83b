// Package containers is the rank driver of roles with container: (any
// --ranks local run): each rank a container of the role's pinned image.
package containers

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/local"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/container"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Ranks of a role with container: run each in a container of the role's
// pinned image: created from the pinned digest and checked to be of it
// before it starts, the rank wrapper (this host's static abbench-rank,
// mounted read-only) its entrypoint, the run directory and the scratch
// directory mounted at their own paths. The wrapper reads the rank's
// launch file (as under srun), so the arm's values win over the image's
// ENV. The client that starts a container stays attached: it is the
// rank's process here, and exits with the container's status.

// Name is the driver's name.
const Name = "container"

// Driver starts each rank of a container role as a container of this
// host's docker.
type Driver struct {
	// Docker is the docker client that runs the containers.
	Docker container.Docker
	// rankBinary is the static abbench-rank mounted into each container
	// as its entrypoint.
	rankBinary string
	s          *scenarios.Scenario
	token      string
	dir, coord string
	mu         sync.Mutex
	live       []*containerRank
}

// containerRank is a rank's container and its attached client.
type containerRank struct {
	name string
	proc *local.Proc
}

// Run is what the driver needs of the run it starts containers for.
type Run struct {
	Scenario *scenarios.Scenario
	// Token is the run's: every container carries it as a label.
	Token string
	// Dir and Coord are the run's directory and its coordination
	// directory, mounted into every container at their own paths.
	Dir, Coord string
	// Self is the abbench executable, beside which the static rank
	// wrapper is looked for first.
	Self string
	// Docker is the docker client's program (default docker, on PATH).
	Docker string
}

// New checks, before anything is made, what container ranks need: a
// pinned digest for every container role, and a static rank wrapper to
// mount.
func New(run Run) (*Driver, error) {
	for _, r := range run.Scenario.Roles {
		if r.Container != nil && !container.IsDigest(r.Container.Digest) {
			return nil, fmt.Errorf("role %s: image %s is not pinned to a digest (container.Pin): every run starts its containers from the pinned digest", r.Name, r.Container.Image)
		}
	}
	w, err := StaticWrapper(run.Self)
	if err != nil {
		return nil, err
	}
	return &Driver{Docker: container.Docker{Program: run.Docker, Env: DockerEnv()}, rankBinary: w,
		s: run.Scenario, token: run.Token, dir: run.Dir, coord: run.Coord}, nil
}

// Name is "container": the driver of roles with container:, whatever --ranks says.
func (d *Driver) Name() string { return Name }

// Remote is false: the containers run on this host, each rank's client a
// process the sweeps see.
func (d *Driver) Remote() bool { return false }

// StaticWrapper is the abbench-rank to mount into containers: beside
// abbench (self), else on PATH; statically linked, as an image may have
// no libc.
func StaticWrapper(self string) (string, error) {
	candidates := []string{filepath.Join(filepath.Dir(self), "abbench-rank")}
	if p, err := exec.LookPath("abbench-rank"); err == nil {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		if abs, err := filepath.Abs(p); err == nil && isStatic(abs) {
			return abs, nil
		}
	}
	return "", fmt.Errorf("roles with container: the rank wrapper inside each container is this host's abbench-rank, statically linked, beside abbench or on PATH; none is (looked at %s): build one with CGO_ENABLED=0 go build ./cmd/abbench-rank", strings.Join(candidates, ", "))
}

// isStatic says whether path is a regular file someone may execute, an
// ELF executable that asks for no program interpreter (a dynamic loader
// the image may not have).
func isStatic(path string) bool {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
		return false
	}
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// DockerEnv is the docker client's environment: this process's (its
// DOCKER_HOST, its HOME's client configuration) without abbench's own
// variables; the client passes none of it into a container.
func DockerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ABBENCH_") {
			env = append(env, kv)
		}
	}
	return env
}

// ImageMismatchError is a rank's container made from another image than
// the run pinned: the container was not started.
type ImageMismatchError struct {
	container, pinned, got string
}

func (e *ImageMismatchError) Error() string {
	return fmt.Sprintf("container %s was created from image %s, but the run pinned %s: it was not started", e.container, e.got, e.pinned)
}

// Start starts each rank's container from every core (ranks.StartEach).
func (d *Driver) Start(r *scenarios.Role, rs []*ranks.Rank) error {
	ranks.StartEach(rs, func(rk *ranks.Rank) error { return d.startOne(r, rk) })
	return nil
}

// startOne writes the rank's launch file, creates its container, checks
// it is of the pinned image, and starts it attached.
func (d *Driver) startOne(r *scenarios.Role, rk *ranks.Rank) error {
	if err := ranks.WriteLaunch(d.coord, rk); err != nil {
		return err
	}
	spec, err := d.spec(r, rk.Index)
	if err != nil {
		return err
	}
	ctx := context.Background() // every call of the driver has its own deadline
	if err := d.Docker.Create(ctx, spec); err != nil {
		return err
	}
	got, err := d.Docker.ImageOf(ctx, spec.Name)
	if err != nil {
		return err
	}
	if got != spec.Image {
		return &ImageMismatchError{container: spec.Name, pinned: spec.Image, got: got}
	}
	start := d.Docker.Start(spec.Name)
	// The token marks the attached client, so that every sweep finds it.
	env := append(slices.Clip(d.Docker.Env), rankwrap.EnvToken+"="+d.token) // a new array: ranks start at once
	// A container's init reports a rank a signal ended as status 128+signal.
	p, err := local.Start(rk, start.Args, env, d.dir, true)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.live = append(d.live, &containerRank{name: spec.Name, proc: p})
	d.mu.Unlock()
	return nil
}

// spec is the container of rank of r.
func (d *Driver) spec(r *scenarios.Role, rank int) (container.Spec, error) {
	scratch := rundir.Scratch(d.token)
	mounts := []container.Mount{{Source: d.dir, Target: d.dir}, {Source: scratch, Target: scratch},
		{Source: d.rankBinary, Target: container.WrapperPath, ReadOnly: true}}
	for _, m := range r.Container.Mounts {
		mt, err := d.s.ParseMount(m)
		if err != nil {
			return container.Spec{}, err
		}
		mounts = append(mounts, container.Mount{Source: mt.Source, Target: mt.Target, ReadOnly: mt.ReadOnly})
	}
	return container.Spec{
		Name:   ContainerName(d.token, r.Name, rank),
		Image:  r.Container.Digest,
		Labels: map[string]string{container.LabelToken: d.token, container.LabelRole: r.Name, container.LabelRank: strconv.Itoa(rank)},
		User:   fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), Workdir: d.dir, Mounts: mounts,
		Env:        []string{rankwrap.EnvToken + "=" + d.token},
		Entrypoint: container.WrapperPath,
		Args:       []string{"--", "--launch", rundir.LaunchDirOf(d.coord), r.Name, strconv.Itoa(rank)},
	}, nil
}

// ContainerName names a rank's container after its run.
func ContainerName(token, role string, rank int) string {
	return "abbench-" + token + "-" + rundir.RankName(role, rank)
}

// Stop is teardown for container ranks: SIGTERM to each running
// container, the grace, then SIGKILL to those still running (marked
// killed), and the attached client killed should it outlive its
// container.
func (d *Driver) Stop(grace, limit time.Duration) []reason.Reason {
	deadline := time.Now().Add(limit)
	d.mu.Lock()
	all := slices.Clone(d.live)
	d.mu.Unlock()
	var live []*containerRank
	var names []string
	for _, cr := range all {
		if !cr.proc.Rank.Ended() {
			live, names = append(live, cr), append(names, cr.name)
		}
	}
	if len(live) == 0 {
		return nil
	}
	ctx := context.Background()
	// Best effort: a container that ended meanwhile fails its kill, the
	// others are signalled; one that missed it is killed after the grace.
	_ = d.Docker.Signal(ctx, "TERM", names...)
	graceEnd := time.Now().Add(min(grace, limit))
	names = names[:0]
	for _, cr := range live {
		select {
		case <-cr.proc.Rank.Done():
		case <-time.After(time.Until(graceEnd)):
		}
		if !cr.proc.Rank.Ended() {
			cr.proc.Rank.Kill()
			names = append(names, cr.name)
		}
	}
	_ = d.Docker.Signal(ctx, "KILL", names...) // what this misses, removeContainers removes
	for _, cr := range live {
		select {
		case <-cr.proc.Rank.Done():
		case <-time.After(max(time.Until(deadline), time.Second)):
			cr.proc.SignalGroup(syscall.SIGKILL)
		}
	}
	return nil
}

// RemoveRun removes every container of token's run and says what is
// left: the names of those still listed, or why none could be listed.
func RemoveRun(d container.Docker, token string) []string {
	ctx := context.Background()
	_, rmErr := d.RemoveRun(ctx, token)
	left, err := d.OfRun(ctx, token)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("they could not be listed (%v)", err)}
	case len(left) > 0 && rmErr != nil:
		return append(left, fmt.Sprintf("removing them: %v", rmErr))
	}
	return left
}
