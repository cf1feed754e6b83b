package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/campaign"
	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
)

// reportFlags only change how abbench run reports, or name the campaign's
// directory: a resume may give them anew, and plan.json does not record
// them.
var reportFlags = []string{"format", "plot", "plot-url", "out", "resume", "resume-new-blocks", "help", "verbose"}

// runArgs is a scenario, or with --resume none (plan.json names it).
func runArgs(cmd *cobra.Command, args []string) error {
	resume := cmd.Flags().Changed("resume")
	switch {
	case resume && len(args) > 0:
		return cli.Usagef("abbench run --resume DIR runs the scenario its plan.json names", "--resume and a scenario: give one")
	case !resume && cmd.Flags().Changed("resume-new-blocks"):
		return cli.Usagef("give it with --resume DIR, after the system under test of the campaign in DIR changed", "--resume-new-blocks without --resume: it begins new blocks of a resumed campaign")
	case !resume && len(args) != 1:
		return cli.Usage(cobra.ExactArgs(1)(cmd, args), "abbench run SCENARIO, or abbench run --resume DIR")
	}
	return nil
}

// recordedFlags are the flags the campaign was given, as plan.json
// records them for a resume: each by name as it prints, and the seed as
// resolved.
func recordedFlags(fs *pflag.FlagSet, seed uint64) map[string]string {
	flags := map[string]string{}
	fs.Visit(func(f *pflag.Flag) {
		if !slices.Contains(reportFlags, f.Name) {
			flags[f.Name] = f.Value.String()
		}
	})
	flags["seed"] = strconv.FormatUint(seed, 10)
	return flags
}

// restoreFlags gives every flag the campaign was given, and this resume
// was not, its recorded value; a flag given now keeps its value, and the
// campaign names it if it differs.
func restoreFlags(fs *pflag.FlagSet, recorded map[string]string) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		v, ok := recorded[f.Name]
		if ok && !f.Changed && err == nil {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = fmt.Errorf("the campaign's flag --%s %q: %w", f.Name, v, serr)
			}
		}
	})
	return err
}

// resumeRun reopens the campaign in --resume DIR under its lock: the
// flags its plan records, the scenario it names, the runs left.
func resumeRun(ctx context.Context, stderr io.Writer, opts *runOptions, _ string) (*campaign.Result, func(), error) {
	dir, cfg := opts.resume, &opts.cfg
	if opts.changed("out") && cfg.Out != dir {
		return nil, nil, cli.Usagef("leave --out out: a resumed campaign stays in its directory", "--out %s and --resume %s: a campaign is resumed in its own directory", cfg.Out, dir)
	}
	p, err := campaign.Recorded(dir)
	if err != nil {
		return nil, nil, resumeError(err)
	}
	release, err := lockCampaign(dir)
	if err != nil {
		return nil, nil, err
	}
	res, err := reopen(ctx, stderr, opts, p.Resume.ScenarioFile, p.Resume.Flags, p.Containers)
	if err != nil {
		release()
		return nil, nil, err
	}
	_, err = fmt.Fprintf(stderr, "abbench: resuming %s: %d of %d runs left to run\n", dir, res.Left(), len(res.Runs))
	return res, release, err
}

// reopen completes the campaign's configuration from its recorded flags
// and scenario file, and reopens it.
func reopen(ctx context.Context, stderr io.Writer, opts *runOptions, scenarioFile string, flags map[string]string, pins []rundir.ContainerImage) (*campaign.Result, error) {
	cfg := &opts.cfg
	if err := restoreFlags(opts.flags, flags); err != nil {
		return nil, cli.Usage(err, "the plan.json of the campaign was edited: resume it as it was, or begin a new campaign")
	}
	opts.changed = opts.flags.Changed
	if err := opts.compare.Complete(); err != nil {
		return nil, err
	}
	s, err := scenarios.Load(scenarioFile)
	if err != nil {
		return nil, err
	}
	// The images the campaign began with, not what their names name now.
	if err := pinImages(ctx, s, pins); err != nil {
		return nil, err
	}
	completeRun(cfg, s, opts.compare.Resolved, opts.changed)
	cfg.Flags, cfg.Out, cfg.ScenarioPath = recordedFlags(opts.flags, cfg.Seed), opts.resume, scenarioFile
	if cfg.Sign, err = opts.sign.Campaign(); err != nil {
		return nil, err
	}
	// Before the runs are judged: an attempt a dead controller left says
	// interrupted by then.
	if err := sweepDead(stderr); err != nil {
		return nil, err
	}
	res, err := campaign.Reopen(cfg)
	if err != nil {
		return nil, resumeError(planError(err, runFlags))
	}
	return res, nil
}

// resumeError is a refused resume as a usage error (exit 2).
func resumeError(err error) error {
	var refused *campaign.RefusedError
	if errors.As(err, &refused) {
		return cli.Usage(err, "resume the campaign with the scenario, flags and binaries it began with (and the files its roles run: put back the one a change names, or give --resume-new-blocks so that no run before the change is paired with one after it), or begin a new one (abbench run SCENARIO --out NEW)")
	}
	return err
}

// lockCampaign takes the campaign's lock: a campaign another abbench run
// is running is refused (exit 2).
func lockCampaign(dir string) (func(), error) {
	release, err := campaign.Lock(dir)
	var busy *campaign.BusyError
	if errors.As(err, &busy) {
		return nil, cli.Usage(err, "wait for it to end, or stop it (SIGINT) and resume again")
	}
	return release, err
}
