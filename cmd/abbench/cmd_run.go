package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/campaign"
	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/scenarios"
)

type runOptions struct {
	launcher   string
	repeat     int
	order      string
	seed       uint64
	seedSet    bool
	out        string
	calibrate  string
	keepGoing  bool
	maxPending time.Duration
	sign       signOptions
	compare    compareOptions
}

func newRunCmd() *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use:     "run SCENARIO [--launcher local] [--repeat N] [--order interleaved|random] [--seed S] [--out DIR]",
		Short:   "Run every arm, each run in its own allocation",
		Long:    help("run"),
		Example: help("run.examples"),
		Args:    argsUsage(cobra.ExactArgs(1), "abbench run SCENARIO"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.seedSet = cmd.Flags().Changed("seed")
			return runRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.launcher, "launcher", "local", "allocation backend: local (a process session each) or slurm (an sbatch job each)")
	fs.IntVar(&opts.repeat, "repeat", 1, "runs per arm")
	fs.StringVar(&opts.order, "order", campaign.OrderInterleaved, "run order: interleaved or random")
	fs.Uint64Var(&opts.seed, "seed", 0, "seed of the random order (default: from the clock, recorded)")
	fs.StringVar(&opts.out, "out", "", "output directory (default out/NAME-TIME)")
	fs.DurationVar(&opts.maxPending, "max-pending", time.Hour, "cancel a run whose allocation stays queued longer than this")
	fs.BoolVar(&opts.keepGoing, "keep-going", false, "run every planned run even after one failed for a cause no repeat can change (a command not found, a missing file)")
	fs.StringVar(&opts.calibrate, "calibrate", "", "run only this arm, --repeat times, and write calibration.json (A/A noise)")
	addSignFlags(cmd, &opts.sign)
	addCompareFlags(cmd, &opts.compare)
	addFormatFlag(fs, &opts.compare.format, "table", "json", "markdown", "junit")
	return cmd
}

func runRun(ctx context.Context, stdout, stderr io.Writer, opts runOptions, path string) error {
	if err := opts.compare.check(); err != nil {
		return err
	}
	s, err := scenarios.Load(path)
	if err != nil {
		return err
	}
	cfg := &campaign.Config{Scenario: s, Launcher: opts.launcher, Repeat: opts.repeat, Order: opts.order, Seed: opts.seed,
		SeedSet: opts.seedSet, Out: opts.out, Calibrate: opts.calibrate, MaxPending: opts.maxPending, KeepGoing: opts.keepGoing}
	if err := cfg.Check(); err != nil {
		return usageError(err, "")
	}
	if cfg.Sign, err = opts.sign.args(); err != nil {
		return err
	}
	res, err := campaign.Plan(cfg)
	if errors.Is(err, campaign.ErrNotEmpty) {
		return usageError(err, "choose a new --out directory: runs never share one")
	} else if err != nil {
		return err
	}
	campaign.SweepDead(stderr)
	prog := campaign.NewProgress(stderr)
	cfg.Progress = prog.Event
	err = campaign.Execute(ctx, cfg, res)
	prog.Done()
	if err != nil {
		return err
	}
	if res.Stopped != "" {
		fmt.Fprintf(stderr, "abbench: stopped early: %s\nabbench: hint: fix it and run again (--keep-going runs every planned run anyway)\n", res.Stopped)
	}
	if res.Interrupted || opts.compare.format.value == "table" {
		campaign.WriteSummary(stdout, res)
		fmt.Fprintln(stdout)
	}
	if res.Interrupted {
		return &statusError{code: exitError, err: fmt.Errorf("interrupted; every run's processes were stopped and its files kept in %s", res.Out)}
	}
	runs, cleanup, err := compare.LoadRuns([]string{res.Out}, bundle.VerifyOptions{})
	defer cleanup()
	if err != nil {
		return err
	}
	if opts.calibrate != "" {
		c, path, err := campaign.Calibrate(res, opts.calibrate, opts.compare.metric, runs)
		var ce *campaign.CensoredError
		if errors.As(err, &ce) {
			return &statusError{code: exitCensored, err: err}
		} else if err != nil {
			return err
		}
		return campaign.WriteCalibration(stdout, c, path)
	}
	if opts.compare.format.value != "json" {
		return runCompare(stdout, opts.compare, runs)
	}
	// One JSON document: the plan and the comparison.
	var buf bytes.Buffer
	err = runCompare(&buf, opts.compare, runs)
	if e := writeJSON(stdout, struct {
		Plan       any             `json:"plan"`
		Comparison json.RawMessage `json:"comparison"`
	}{res.Plan, buf.Bytes()}); e != nil {
		return e
	}
	return err
}
