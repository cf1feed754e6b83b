package arms

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/ranks/containers"
	"github.com/abbench/abbench/internal/arms/ranks/kubernetes"
	"github.com/abbench/abbench/internal/arms/ranks/local"
	"github.com/abbench/abbench/internal/arms/ranks/srun"
	"github.com/abbench/abbench/internal/container/oci"
	"github.com/abbench/abbench/internal/scenarios"
)

// The ways ranks start inside an allocation, as --ranks names them.
const (
	RanksLocal = local.Name // each rank a process of this host
	RanksSrun  = srun.Name  // each role one srun step of the Slurm allocation
	// RanksKubernetes starts each role as an Indexed Job of pods in the
	// namespace of the controller's own pod.
	RanksKubernetes = kubernetes.Name
	// EnvKubernetesAPI, in the controller's pod, is the API server's
	// address when the Service address the kubelet gives does not route.
	EnvKubernetesAPI = kubernetes.EnvAPI
)

// RankDriver is a way ranks start, as --ranks names it. Adding one is a
// package implementing ranks.Driver that passes arms/ranks/rankstest, and
// a line in rankDrivers: the CLI's check, its help and its completion
// read this list.
type RankDriver struct {
	Name string
	// About says how its ranks start, for --ranks's help.
	About string
	// tracked says the scheduler tracks every process of the run and
	// stops them all when its job ends (Slurm): the controller starts no
	// guard and notes no live run (setup.go says why).
	tracked bool
	// noContainers, when set, says why roles with container: cannot run
	// beside this driver's ranks, and what to do instead.
	noContainers string
	// ownContainers says the driver starts the ranks of roles with
	// container: itself (srun's, as Slurm's containers), not docker.
	ownContainers bool
	// open makes the run's driver once the run's directory is there.
	open func(c *controller) (ranks.Driver, error)
}

// rankDrivers are the ways ranks start; the first is the default.
var rankDrivers = []RankDriver{
	{Name: RanksLocal, About: "processes of this host", open: func(c *controller) (ranks.Driver, error) {
		return &local.Driver{Dir: c.dir, Wrapper: c.wrapper}, nil
	}},
	{Name: RanksSrun, About: "one srun step per role, inside a Slurm allocation", tracked: true, ownContainers: true,
		open: func(c *controller) (ranks.Driver, error) {
			var sc srun.Containers
			if c.s.HasContainers() {
				w, err := containers.StaticWrapper(c.self)
				if err != nil {
					return nil, err
				}
				sc.Wrapper, sc.Pyxis = w, oci.Pyxis()
			}
			return srun.New(c.s, c.dir, c.coord, c.wrapper, sc)
		}},
	{Name: RanksKubernetes, About: "one Indexed Job of pods per role, from the controller's pod",
		noContainers: "roles with container: run under the local launcher; under the kubernetes launcher every rank is a pod of the run's image already (launcher.kubernetes.ranks: local keeps them in one pod, still without container roles)",
		open: func(c *controller) (ranks.Driver, error) {
			return kubernetes.New(os.Getenv(EnvKubernetesAPI), kubernetes.Run{Scenario: c.s, Token: c.opts.Token, Dir: c.dir, Coord: c.coord,
				Wrapper: c.wrapper, StartWithin: time.Duration(c.s.Deadlines.Ready)})
		}},
}

// RankDrivers names every way ranks start, the default first.
func RankDrivers() []string {
	names := make([]string, len(rankDrivers))
	for i, d := range rankDrivers {
		names[i] = d.Name
	}
	return names
}

// RanksHelp says every way ranks start, for --ranks's help.
func RanksHelp() string {
	var parts []string
	for _, d := range rankDrivers {
		parts = append(parts, d.Name+" ("+d.About+")")
	}
	return "how ranks start: " + strings.Join(parts[:len(parts)-1], ", ") + ", or " + parts[len(parts)-1]
}

// UnknownRanksError is a --ranks value no driver has.
type UnknownRanksError struct{ Name string }

func (e *UnknownRanksError) Error() string {
	names := RankDrivers()
	return fmt.Sprintf("ranks %q: choose %s or %s", e.Name, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// rankDriver is the driver --ranks names ("" the default).
func rankDriver(name string) (RankDriver, error) {
	if name == "" {
		return rankDrivers[0], nil
	}
	for _, d := range rankDrivers {
		if d.Name == name {
			return d, nil
		}
	}
	return RankDriver{}, &UnknownRanksError{Name: name}
}

// tracked says whether --ranks name's scheduler tracks the run's processes.
func tracked(name string) bool {
	d, err := rankDriver(name)
	return err == nil && d.tracked
}

// CheckRanks says whether name is a way ranks start (*UnknownRanksError
// when it is not).
func CheckRanks(name string) error {
	_, err := rankDriver(name)
	return err
}

// driverOf is the driver that starts the ranks of r: the container
// driver for a role with container: (unless the run's --ranks driver
// runs them itself), the run's --ranks driver for any other.
func (c *controller) driverOf(r *scenarios.Role) ranks.Driver {
	if r.Container != nil && c.containers != nil {
		return c.containers
	}
	return c.driver
}

// drivers are every driver of the run, each once.
func (c *controller) drivers() []ranks.Driver {
	ds := []ranks.Driver{}
	if c.driver != nil {
		ds = append(ds, c.driver)
	}
	if c.containers != nil {
		ds = append(ds, c.containers)
	}
	return ds
}
