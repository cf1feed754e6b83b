package arms

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/abbench/abbench/arms/ranks"
	"github.com/abbench/abbench/arms/ranks/local"
	"github.com/abbench/abbench/scenarios"
)

// RankDriver is a way ranks start, as --ranks names it. Adding one is a
// package implementing ranks.Driver that passes arms/ranks/rankstest, and
// a line in rankDrivers: the CLI's check, its help and its completion
// read this list.
type RankDriver struct {
	Name string
	// About says how its ranks start, for --ranks's help.
	About string
	// open makes the run's driver once the run's directory is there.
	open func(c *controller) (ranks.Driver, error)
}

// rankDrivers are the ways ranks start; the first is the default.
var rankDrivers = []RankDriver{
	{Name: RanksLocal, About: "processes of this host", open: func(c *controller) (ranks.Driver, error) {
		return &local.Driver{Dir: c.dir, Wrapper: c.wrapper}, nil
	}},
	{Name: RanksSrun, About: "one srun step per role, inside a Slurm allocation", open: func(c *controller) (ranks.Driver, error) {
		return newSrunDriver(c.s, c.dir, c.coord, c.wrapper)
	}},
	{Name: RanksKubernetes, About: "one Indexed Job of pods per role, from the controller's pod", open: func(c *controller) (ranks.Driver, error) {
		k, err := newKubeRanks(os.Getenv(EnvKubernetesAPI), c.opts.Token, time.Duration(c.s.Deadlines.Ready))
		if err != nil {
			return nil, err
		}
		k.s, k.dir, k.coord, k.wrapper = c.s, c.dir, c.coord, c.wrapper
		return k, nil
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
	return "how ranks start: " + strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
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

// CheckRanks says whether name is a way ranks start (*UnknownRanksError
// when it is not).
func CheckRanks(name string) error {
	_, err := rankDriver(name)
	return err
}

// driverOf is the driver that starts the ranks of r: the container
// driver for a role with container:, the run's --ranks driver for any
// other.
func (c *controller) driverOf(r *scenarios.Role) ranks.Driver {
	if r.Container != nil {
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
