package campaign

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/scenarios"
)

// The launchers Config.Launcher takes.
var Launchers = []string{"local", "slurm", "kubernetes"}

// LauncherStages is the launcher plan.json names for a campaign whose runs
// are CI stages (abbench plan): each stage makes its run with abbench arm
// --plan, in an allocation of its own.
const LauncherStages = "stages"

// UntilConclusive is the Until of a sequential campaign.
const UntilConclusive = "conclusive"

// Config is one campaign, complete: Plan validates it as it is and fills
// in nothing that depends on how it was given (which flags a command was
// given is the command's to resolve). It is a plain value: Plan fills in
// its defaults (Self, ScenarioPath, Out), and the state of running the
// campaign is Execute's own (execution), never written to it.
type Config struct {
	Scenario     *scenarios.Scenario
	ScenarioPath string // the scenario file each run's controller reads (default: Scenario.File)
	Launcher     string // local, slurm or kubernetes
	// Repeat is the number of blocks (runs per arm) of a fixed design: at
	// least 1 without Until, 0 with it; a calibration's A/A pairs.
	Repeat int
	Order  string // OrderABBA, OrderInterleaved or OrderRandom
	Seed   uint64 // the seed of the random order and of abba's draws, recorded
	// alternate plans abba's blocks alternating from the first, undrawn:
	// a plan made before they were drawn, resumed (Reopen).
	alternate bool
	// Out is the campaign directory; it must be new or empty (default
	// out/NAME-TIME).
	Out string
	// Calibrate, when set, runs only this arm (an A/A campaign).
	Calibrate string
	// MaxPending bounds the time a run's allocation may stay queued.
	MaxPending time.Duration
	// Self is the abbench executable each allocation runs as its
	// controller (default: this process's executable).
	Self string
	// Sign says how every run's controller signs its bundle.
	Sign Signing
	// Progress, when set, hears every change of a run's state.
	Progress func(Event)
	// KeepGoing runs every planned run even after one failed for a cause
	// that cannot change between repeats (Result.Stopped).
	KeepGoing bool
	// Warmup is the number of warm-up blocks (one run of every arm each)
	// before the counted ones: run, recorded, left out of the statistics.
	Warmup int
	// Until is "" (Repeat blocks) or UntilConclusive: look after every
	// block from MinPairs on and stop at the first decided verdict, at
	// most MaxPairs blocks.
	Until              string
	MinPairs, MaxPairs int
	// Compare is how a sequential campaign's looks compare (metric,
	// smallest effect, level, method): as the final comparison will.
	Compare compare.Options
	// PairNodes runs every run of an abba block on the nodes of the
	// block's first run (each still its own allocation): the pair shares
	// its hardware, and the comparison within it does not see the
	// difference between nodes.
	PairNodes bool
	// Concurrent runs the runs of each block at the same time, each in an
	// allocation of its own (see blocks): under Slurm on nodes no other
	// job shares, locally only where the scenario says its runs share
	// nothing (launcher.local.concurrent_safe).
	Concurrent bool
	// Stages plans runs that CI stages make, one abbench arm each (abbench
	// plan); nothing runs the plan here.
	Stages bool
	// NewBlocks lets Reopen resume a campaign whose system under test
	// changed (a file its roles run): every block with a run before the
	// change and a run left runs again whole (newBlocks), so that no block,
	// which the statistics pair within, holds runs of both systems.
	NewBlocks bool
	// Options are the options the command was given, each by what it
	// means (rundir.Resumable's Options), as they print: plan.json records
	// them, and Reopen holds a resumed campaign to them.
	Options map[string]string
	// OptionName says an option's key as the command that was given it
	// names it (its flag) in a refused resume; nil: the key itself.
	OptionName func(key string) string

	launcher launcher.Launcher // tests: the backend Launcher would name
}

// CalibratedMaxPairs is the most pairs of a sequential campaign planned
// with calibration c: the pairs c needs, from minPairs on, and at most 50
// (a calibration that asks for more says the effect is too small to chase
// by repeats).
func CalibratedMaxPairs(c *compare.Calibration, minPairs int) int {
	return min(max(c.PairsNeeded, minPairs), 50)
}

// Signing is how the runs' controllers sign their bundles: a key file, or
// ssh-agent (with the public key file of the key to use), or nothing.
type Signing struct {
	Key     string
	Agent   bool
	Pub     string
	Archive bool // also pack each bundle as bundle.tar.gz
}

// args are the abbench arm flags that sign so, with absolute paths (the
// controller runs in its run directory).
func (s Signing) args() []string {
	var a []string
	switch {
	case s.Agent:
		a = append(a, "--sign-agent")
		if s.Pub != "" {
			pub, _ := filepath.Abs(s.Pub)
			a = append(a, "--sign-pub", pub)
		}
	case s.Key != "":
		key, _ := filepath.Abs(s.Key)
		a = append(a, "--sign-key", key)
	}
	if s.Archive {
		a = append(a, "--archive")
	}
	return a
}

// validate refuses a configuration no campaign can run, before anything
// is written, with a *field.Error naming the field at fault (decide's
// error for a sequential design it refuses). It returns the sequential
// design of a campaign with Until (nil without).
func (c *Config) validate() (*decide.Sequential, error) {
	if err := c.validateDesign(); err != nil {
		return nil, err
	}
	if err := c.validateConcurrent(); err != nil {
		return nil, err
	}
	if err := c.validateSweep(); err != nil {
		return nil, err
	}
	if c.Calibrate != "" {
		if err := c.validateCalibration(); err != nil {
			return nil, err
		}
	}
	if c.Until == "" {
		return nil, nil
	}
	if c.Order != OrderABBA {
		return nil, &field.Error{Field: "Until", Value: c.Until, Needs: []field.Setting{{Field: "Order", Value: OrderABBA}}, Problem: "(the looks compare within pairs)"}
	}
	if len(c.Scenario.ArmOrder) < 2 {
		return nil, &field.Error{Field: "Until", Value: c.Until, Problem: "needs two arms or more"}
	}
	return decide.NewSequential(c.MinPairs, c.MaxPairs, c.Compare.Alpha)
}

// validateDesign checks each field of the design on its own and the
// pairs that exclude each other.
func (c *Config) validateDesign() error {
	switch {
	case c.Until != "" && c.Repeat != 0:
		return &field.Error{Field: "Repeat", With: "Until", Problem: "give one (a fixed number of blocks, or pairs until a look decides)"}
	case !slices.Contains(Launchers, c.Launcher):
		return &field.Error{Field: "Launcher", Value: fmt.Sprintf("%q", c.Launcher), Problem: "choose local, slurm or kubernetes"}
	case c.Repeat < 1 && c.Until == "":
		return &field.Error{Field: "Repeat", Value: fmt.Sprint(c.Repeat), Problem: "must be at least 1"}
	case !slices.Contains(Orders, c.Order):
		return &field.Error{Field: "Order", Value: fmt.Sprintf("%q", c.Order), Problem: "choose " + strings.Join(Orders, ", ")}
	case c.PairNodes && (c.Launcher != "slurm" || c.Order != OrderABBA):
		return &field.Error{Field: "PairNodes", Needs: []field.Setting{{Field: "Launcher", Value: "slurm"}, {Field: "Order", Value: OrderABBA}}, Problem: "(a local run has one node)"}
	case c.Warmup < 0:
		return &field.Error{Field: "Warmup", Value: fmt.Sprint(c.Warmup), Problem: "must be 0 or more"}
	case c.Until != "" && c.Until != UntilConclusive:
		return &field.Error{Field: "Until", Value: fmt.Sprintf("%q", c.Until), Problem: fmt.Sprintf("the one condition is %q", UntilConclusive)}
	}
	return nil
}

// validateCalibration checks an A/A campaign: one arm of the scenario, in
// a fixed number of pairs.
func (c *Config) validateCalibration() error {
	if _, ok := c.Scenario.Arms[c.Calibrate]; !ok {
		return &field.Error{Field: "Calibrate", Value: fmt.Sprintf("%q", c.Calibrate), Problem: fmt.Sprintf("not an arm of %s (its arms: %v)", c.Scenario.File, c.Scenario.ArmOrder)}
	}
	if c.Until != "" {
		return &field.Error{Field: "Until", With: "Calibrate", Problem: "a calibration runs a fixed number of A/A pairs"}
	}
	if c.Repeat < 2 {
		return &field.Error{Field: "Repeat", Value: fmt.Sprint(c.Repeat), Problem: "a calibration needs at least 2 (A/A pairs; 5 or more give a useful estimate)"}
	}
	return nil
}
