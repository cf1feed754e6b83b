package campaign

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/abbench/abbench/internal/rundir"
)

// ErrNotEmpty is returned when Config.Out already holds files.
var ErrNotEmpty = errors.New("the campaign directory is not empty")

// InvalidError is a Config that Plan refuses: the configuration is at
// fault, not the system. Err says why: a *field.Error, or the sequential
// design's own error (package decide).
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Plan validates c and plans its runs: the order of every arm's runs, each
// run's directory, the sequential design. It writes nothing, so a
// configuration it refuses (*InvalidError) leaves nothing behind; Claim
// then writes the plan, and Execute runs it.
func Plan(c *Config) (*Result, error) {
	seq, err := c.validate()
	if err != nil {
		return nil, &InvalidError{Err: err}
	}
	if c.Self == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		c.Self = self
	}
	if c.ScenarioPath == "" {
		c.ScenarioPath, _ = filepath.Abs(c.Scenario.File)
	}
	if c.Out == "" {
		c.Out = filepath.Join("out", c.Scenario.Name+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	out, err := filepath.Abs(c.Out)
	if err != nil {
		return nil, err
	}
	s := c.Scenario
	armNames := s.ArmOrder
	if c.Calibrate != "" {
		armNames = []string{c.Calibrate}
	}
	// A plan is a campaign of its own by its ID, whatever its seed: two
	// plans made with one --seed would otherwise have one digest, and the
	// runs of both would pass for one campaign's.
	p := &rundir.Plan{ID: rand.Text(), Scenario: s.Name, MatchedDigest: s.MatchedDigest(), Launcher: c.Launcher, Order: c.Order, Seed: c.Seed, Repeat: c.Repeat, Warmup: c.Warmup, Concurrent: c.Concurrent,
		OrderDrawn: c.Order == OrderABBA && !c.alternate}
	if c.Stages {
		p.Launcher = LauncherStages
	} else {
		p.Resume = c.resumable()
	}
	blocks := c.Repeat
	switch {
	case c.Calibrate != "":
		blocks = 2 * c.Repeat // A/A pairs of the one arm
	case seq != nil:
		p.Sequential = &rundir.Sequential{MinPairs: seq.MinPairs, MaxPairs: seq.MaxPairs, Alpha: seq.Alpha, LookAlpha: seq.LookAlpha,
			Boundary: seq.Boundary, LookAlphas: seq.LookAlphas, Futility: seq.Futility, SkipUnreachable: seq.SkipUnreachable, Rule: &rundir.StopRule{Baseline: c.Compare.Baseline, Metric: c.Compare.Metric, Effect: c.Compare.Effect, Method: c.Compare.Method, Metrics: c.Compare.Metrics}}
		blocks = seq.MaxPairs
		if s.Matrix != nil {
			// A sweep's cells are one family with its stops: signed,
			// so a resumed plan and compare hold each cell to its share.
			p.Sequential.Rule.Cells = len(s.Cells())
		}
	}
	if s.Matrix != nil {
		p.Cells, p.Runs = c.sweepRuns(armNames, blocks, out)
	} else {
		for i, arm := range c.orderOf(armNames, c.Warmup+blocks) {
			p.Runs = append(p.Runs, rundir.PlannedRun{Index: i + 1, Arm: arm, Dir: rundir.RunDir(out, i+1, arm), Warmup: i < c.Warmup*len(armNames)})
		}
	}
	r := &Result{Out: out, Plan: p, Runs: make([]Run, len(p.Runs)), given: c.Out}
	for i := range p.Runs {
		r.Runs[i].Planned = &p.Runs[i]
	}
	return r, nil
}

// orderOf is the arm of every run of blocks: abba's pairs of blocks
// drawn (DrawnOrder), but for a plan resumed from before they were.
func (c *Config) orderOf(names []string, blocks int) []string {
	if c.alternate {
		return Order(names, blocks, c.Order, c.Seed)
	}
	return DrawnOrder(names, blocks, c.Order, c.Seed)
}

// Claim makes r.Out this campaign's directory, which must be new or empty
// (ErrNotEmpty), and writes the plan there.
func (r *Result) Claim() error {
	if err := claim(r.Out); err != nil {
		return fmt.Errorf("%s: %w", r.given, err)
	}
	if err := os.Mkdir(filepath.Join(r.Out, rundir.RunsDir), 0o755); err != nil {
		return err
	}
	return rundir.WritePlan(r.Out, r.Plan)
}

// claim makes out the directory of this campaign alone: plan.json is
// created exclusively, so of two campaigns started into one directory at
// once exactly one gets it, and a directory that holds anything else is
// refused.
func claim(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(out, rundir.PlanFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return ErrNotEmpty
	} else if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) != 1 {
		if rerr := os.Remove(filepath.Join(out, rundir.PlanFile)); rerr != nil {
			return fmt.Errorf("%w; and removing the %s it made: %v (remove it by hand)", ErrNotEmpty, rundir.PlanFile, rerr)
		}
		if err != nil {
			return err
		}
		return ErrNotEmpty
	}
	return nil
}
