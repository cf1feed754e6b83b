package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// reportFlags only change how abbench run reports, or name the campaign's
// directory: a resume may give them anew, and plan.json does not record
// them (runOptionFlags names the others).
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

// runOptionFlags name each option plan.json records for a resume, by
// what it means (its key: rundir.Resumable's Options), by the flag of
// abbench run that gives it. Renaming a flag changes this table alone:
// plans record the key, so those written before resume.
var runOptionFlags = map[string]string{
	"launcher": "launcher", "blocks": "repeat", "stop_rule": "until", "min_pairs": "min-pairs", "max_pairs": "max-pairs",
	"warmup_blocks": "warmup", "order": "order", "order_seed": "seed", "max_queued": "max-pending", "keep_going": "keep-going",
	"calibrate_arm": "calibrate", "pair_nodes": "pair-nodes", "concurrent_blocks": "concurrent",
	"sign_key": "sign-key", "sign_agent": "sign-agent", "sign_agent_key": "sign-pub", "archive": "archive",
	"allowed_signers": "allowed-signers", "signer_identity": "identity",
	"baseline": "baseline", "metrics": "metric", "smallest_effect": "smallest-effect",
	"alpha": "alpha", "paired_method": "method", "calibration_file": "calibration", "fail_on": "fail-on",
}

// oldFlagNames are hidden flags kept under a name a flag had before, by
// the flag that replaced them.
var oldFlagNames = map[string]string{"threshold": "smallest-effect"}

// runOption is the option the flag named name gives, or "".
func runOption(name string) string {
	name = cmp.Or(oldFlagNames[name], name)
	for key, flag := range runOptionFlags {
		if flag == name {
			return key
		}
	}
	return ""
}

// runOptionName says an option as abbench run's user knows it: its flag.
func runOptionName(key string) string {
	if flag, ok := runOptionFlags[key]; ok {
		return "flag --" + flag
	}
	return "option " + key
}

// recordedOptions are the options the campaign was given, as plan.json
// records them for a resume: each by what it means, as it prints, and the
// seed as resolved. A flag that gives no option of runOptionFlags and
// does not only change the report is a flag added without its option:
// TestEveryRunFlagIsAnOption holds them to it.
func recordedOptions(fs *pflag.FlagSet, seed uint64) map[string]string {
	options := map[string]string{}
	fs.Visit(func(f *pflag.Flag) {
		if key := runOption(f.Name); key != "" {
			options[key] = f.Value.String()
		}
	})
	options["order_seed"] = strconv.FormatUint(seed, 10)
	return options
}

// restoreOptions gives every option the campaign was given, and this
// resume was not, its recorded value through its flag; a flag given now
// keeps its value, and the campaign names it if it differs. An option no
// flag gives (a plan edited, or written by a later abbench) is refused.
func restoreOptions(fs *pflag.FlagSet, recorded map[string]string) error {
	for _, key := range slices.Sorted(maps.Keys(recorded)) {
		name, ok := runOptionFlags[key]
		if !ok {
			return fmt.Errorf("the campaign's option %q: abbench run has no flag that gives it", key)
		}
		if f := fs.Lookup(name); f != nil && !f.Changed {
			if err := fs.Set(name, recorded[key]); err != nil {
				return fmt.Errorf("the campaign's option %q (--%s) %q: %w", key, name, recorded[key], err)
			}
		}
	}
	return nil
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
	res, err := reopen(ctx, stderr, opts, p.Resume.ScenarioFile, p.Resume.Options, p.Containers)
	if err != nil {
		release()
		return nil, nil, err
	}
	if res.Plan != nil && res.Plan.Decided != "" {
		// A sequential campaign that decided ran what it needed: its
		// planned runs after the stop are not left, and none will run.
		_, err = fmt.Fprintf(stderr, "abbench: %s had already decided (%s): nothing is left to run\n", dir, res.Plan.Decided)
		return res, release, err
	}
	_, err = fmt.Fprintf(stderr, "abbench: resuming %s: %d of %d runs left to run\n", dir, res.Left(), len(res.Runs))
	return res, release, err
}

// reopen completes the campaign's configuration from its recorded
// options and scenario file, and reopens it.
func reopen(ctx context.Context, stderr io.Writer, opts *runOptions, scenarioFile string, options map[string]string, pins []rundir.ContainerImage) (*campaign.Result, error) {
	cfg := &opts.cfg
	if err := restoreOptions(opts.flags, options); err != nil {
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
	cfg.Options, cfg.Out, cfg.ScenarioPath = recordedOptions(opts.flags, cfg.Seed), opts.resume, scenarioFile
	cfg.OptionName = runOptionName
	if cfg.Sign, err = opts.sign.Campaign(); err != nil {
		return nil, err
	}
	// Before the runs are judged: an attempt a dead controller left says
	// interrupted by then.
	if err := sweepDead(stderr); err != nil {
		return nil, err
	}
	if err := writeImages(ctx, s, cfg.Launcher, opts.resume); err != nil { // once: those written out are kept
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
	if errors.As(err, &refused) && refused.NoCampaign {
		return cli.Usage(err, "--resume takes the --out directory of an abbench run campaign (the one that holds its plan.json)")
	}
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
