package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/comparison"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/cmd/abbench/internal/render"
	"github.com/abbench/abbench/cmd/abbench/internal/signing"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/launcher/kubernetes"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// runOptions are the campaign's flags, bound to its Config directly.
type runOptions struct {
	cfg     campaign.Config
	sign    signing.Sign
	compare comparison.Options
	changed func(flag string) bool // whether the flag was given
	flags   *pflag.FlagSet
	resume  string // --resume DIR
	verbose bool   // -v: the runs table and the full report, not a summary
}

// runFlags name campaign.Config's fields by the flags that set them.
var runFlags = cli.FieldFlags{"Launcher": "--launcher", "Repeat": "--repeat", "Until": "--until", "MinPairs": "--min-pairs", "MaxPairs": "--max-pairs",
	"Warmup": "--warmup", "Order": "--order", "Calibrate": "--calibrate", "PairNodes": "--pair-nodes", "Concurrent": "--concurrent",
	"NewBlocks": "--resume-new-blocks"}

func newRunCmd() *cobra.Command {
	var opts runOptions
	cmd := &cobra.Command{
		Use:     "run SCENARIO [--launcher local] [--until conclusive | --repeat N] [--order abba|interleaved|random] [--out DIR]",
		Short:   "Run every arm, each run in its own allocation",
		Long:    help.Text("run"),
		Example: help.Text("run.examples"),
		Args:    runArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.changed, opts.flags = cmd.Flags().Changed, cmd.Flags()
			return runRun(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &opts, append(args, "")[0])
		},
	}
	fs, c := cmd.Flags(), &opts.cfg
	fs.StringVar(&c.Launcher, "launcher", "local", "allocation backend: local (a process session each), slurm (an sbatch job each) or kubernetes (a Job each)")
	// No default in the flag: without --repeat the design decides (pairs
	// until conclusive, else one block), and completeRun says which.
	fs.IntVar(&c.Repeat, "repeat", 0, "blocks (runs per arm), fixed; a calibration: A/A pairs (default: pairs --until conclusive for two arms or more in abba order, else 1)")
	fs.StringVar(&c.Until, "until", "", "conclusive: look after each pair from --min-pairs and stop at the first verdict a test decides (the default without --repeat)")
	fs.IntVar(&c.MinPairs, "min-pairs", 3, "first pair count a sequential campaign looks at")
	fs.IntVar(&c.MaxPairs, "max-pairs", decide.DefaultMaxPairs, "most pairs a sequential campaign runs (with --calibration: the pairs it needs)")
	fs.IntVar(&c.Warmup, "warmup", 0, "warm-up blocks first: run and recorded, left out of the statistics")
	fs.StringVar(&c.Order, "order", campaign.OrderABBA, "run order: abba (pairs AB BA AB ..., compared within), interleaved or random (compared unpaired)")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the random order and of abba's drawn pairs of blocks (default: from the clock, recorded)")
	fs.StringVar(&c.Out, "out", "", "output directory (default out/NAME-TIME)")
	fs.DurationVar(&c.MaxPending, "max-pending", time.Hour, "cancel a run whose allocation stays queued longer than this")
	fs.BoolVar(&c.KeepGoing, "keep-going", false, "run every planned run even after one failed for a cause no repeat can change (a command not found, a missing file)")
	fs.StringVar(&c.Calibrate, "calibrate", "", "run only this arm, in --repeat A/A pairs, and write calibration.json (its noise, the pairs a comparison needs)")
	fs.BoolVar(&c.PairNodes, "pair-nodes", false, "slurm: run each abba block's later runs on the nodes of its first run (each still its own job)")
	fs.BoolVar(&c.Concurrent, "concurrent", false, "run the runs of each block at the same time, each in its own allocation: slurm on nodes of its own; local only with launcher.local.concurrent_safe")
	fs.StringVar(&opts.resume, "resume", "", "continue the campaign in DIR: the runs that ended are kept, the others run; its scenario, flags, binaries and system under test must be as it began")
	fs.BoolVar(&c.NewBlocks, "resume-new-blocks", false, "with --resume, after the system under test changed: run every block with runs before the change and runs left again whole, so no pair holds runs of both systems")
	fs.BoolVarP(&opts.verbose, "verbose", "v", false, "print every phase of every run, every run's row and the full report (default: a line a run and a summary; abbench compare DIR prints the full report)")
	signing.AddSignFlags(cmd, &opts.sign)
	comparison.AddFlags(cmd, &opts.compare)
	cli.AddFormat(fs, &opts.compare.Format, compare.Formats...)
	return cmd
}

// completeRun resolves what the flags left to the scenario and to each
// other into cfg, a campaign's complete configuration: the order's seed
// from the clock, without --repeat an abba campaign of two arms or more
// runs until conclusive, and with a calibration, the pairs it needs are the
// most pairs.
func completeRun(cfg *campaign.Config, s *scenarios.Scenario, co compare.Options, changed func(string) bool) {
	cfg.Scenario, cfg.Compare = s, co
	if !changed("seed") {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if !changed("repeat") {
		if cfg.Until == "" && cfg.Calibrate == "" && cfg.Order == campaign.OrderABBA && len(s.ArmOrder) > 1 {
			cfg.Until = campaign.UntilConclusive // the default: pairs until a test decides
		}
		cfg.Repeat = 1
		if cfg.Until != "" {
			cfg.Repeat = 0 // the design's pairs, not a fixed count
		}
	}
	if cal := co.Calibration; cal != nil && !changed("max-pairs") {
		cfg.MaxPairs = campaign.CalibratedMaxPairs(cal, cfg.MinPairs)
	}
}

// forbiddenError is err, a usage error (exit 2) with how to grant what
// is missing where it is a launcher account's lack of rights: nothing of
// the run was made, and the account's rights are the fix.
func forbiddenError(err error) error {
	var forbidden *kubernetes.ForbiddenError
	if errors.As(err, &forbidden) {
		return &cli.Error{Code: cli.ExitUsage, Err: err, Hint: forbidden.Hint()}
	}
	var tenant *kubernetes.TenantError
	if errors.As(err, &tenant) {
		return &cli.Error{Code: cli.ExitUsage, Err: err, Hint: tenant.Hint()}
	}
	return err
}

// familyMetrics is the number of metrics the campaign is compared on as
// one family (--metric's, else the scenario's throughput.metrics), 0 for
// one: a sequential design's looks hold each to its share of alpha, so
// that the stop and the family's verdicts are one decision.
func familyMetrics(given []string, s *scenarios.Scenario) int {
	n := len(given)
	if n == 0 && s.Evidence.Throughput != nil {
		n = len(s.Evidence.Throughput.Metrics)
	}
	if n < 2 {
		return 0
	}
	return n
}

// stopMetric is the metric a sequential campaign of several metrics
// stops on (its looks' headline, held to its share of alpha): the first
// --metric, else the scenario's headline where its throughput.metrics
// hold it, else their first. Left to the scenario's headline, the looks
// stopped on output_throughput, a metric the family did not hold (runs
// stopped "improved" with every metric asked for inconclusive).
func stopMetric(given []string, s *scenarios.Scenario) string {
	if len(given) > 0 {
		return given[0]
	}
	family := s.Evidence.Throughput.Metrics
	if h := s.Evidence.Throughput.Headline(); slices.Contains(family, h) {
		return h // the format's default headline where the scenario names none
	}
	return family[0]
}

// beginRun plans the campaign of the scenario at path, claims its --out
// directory and takes its lock.
func beginRun(ctx context.Context, stderr io.Writer, opts *runOptions, path string) (*campaign.Result, func(), error) {
	if err := opts.compare.Complete(); err != nil {
		return nil, nil, err
	}
	s, err := scenarios.Load(path)
	if err != nil {
		return nil, nil, err
	}
	// What validate warns of, run says too, before any run: a user who
	// never ran validate otherwise learnt of an arm key nothing proves
	// only from a campaign that ran one mode in every arm.
	warnings := make([]string, len(s.Warnings))
	for i, w := range s.Warnings {
		warnings[i] = w.Error()
	}
	if err := cli.Warn(stderr, warnings); err != nil {
		return nil, nil, err
	}
	if err := opts.compare.CheckScenarioMetrics(s); err != nil {
		return nil, nil, err
	}
	cfg := &opts.cfg
	completeRun(cfg, s, opts.compare.Resolved, opts.changed)
	cfg.Compare.Metrics = familyMetrics(opts.compare.Metric, s)
	if cfg.Compare.Metrics > 1 && cfg.Compare.Metric == "" {
		cfg.Compare.Metric = stopMetric(opts.compare.Metric, s)
	}
	cfg.Options = recordedOptions(opts.flags, cfg.Seed)
	if err := containersOnLauncher(s, cfg.Launcher); err != nil {
		return nil, nil, err
	}
	if err := pinImages(ctx, s, nil); err != nil {
		return nil, nil, err
	}
	if err := campaign.CheckLauncher(ctx, cfg); err != nil {
		return nil, nil, forbiddenError(err)
	}
	res, err := campaign.Plan(cfg)
	if err != nil {
		return nil, nil, planError(err, runFlags)
	}
	res.Plan.Containers = s.Pinned() // every run starts its containers from these
	if cfg.Sign, err = opts.sign.Campaign(); err != nil {
		return nil, nil, err
	}
	// Before the plan claims --out: a registry another user could write
	// refuses the campaign with nothing written.
	if err := sweepDead(stderr); err != nil {
		return nil, nil, err
	}
	if err := claimOut(res, "choose a new --out directory (campaigns never share one), or continue the campaign there: abbench run --resume "+cfg.Out); err != nil {
		return nil, nil, err
	}
	release, err := lockCampaign(res.Out)
	if err != nil {
		return nil, nil, err
	}
	if err := writeImages(ctx, s, cfg.Launcher, res.Out); err != nil {
		release()
		return nil, nil, err
	}
	return res, release, nil
}

// runSchema names run --format json's document: the plan and its comparison.
const runSchema = "abbench-run-v1"

func runRun(ctx context.Context, stdout, stderr io.Writer, opts *runOptions, path string) (err error) {
	begin := beginRun
	if opts.resume != "" {
		begin = resumeRun
	}
	res, release, err := begin(ctx, stderr, opts, path)
	if err != nil {
		return err
	}
	defer release()
	stdout, done := opts.compare.Format.Fitted(stdout)
	defer func() {
		if derr := done(); err == nil {
			err = derr
		}
	}()
	cfg := &opts.cfg
	prog := render.NewProgress(stderr)
	prog.Verbose = opts.verbose
	cfg.Progress = prog.Event
	err = campaign.Execute(ctx, cfg, res)
	prog.Done()
	defer func() { err = afterAllError(stderr, res, err) }()
	if err != nil {
		return hookError(forbiddenError(err), res.Out)
	}
	if res.Stopped != "" {
		if _, err := fmt.Fprintf(stderr, "abbench: stopped early: %s\nabbench: hint: fix it and run again (--keep-going runs every planned run anyway)\n", res.Stopped); err != nil {
			return err
		}
	}
	if err := writeRuns(stdout, res, opts); err != nil {
		return err
	}
	if res.Unrecorded != nil {
		return &cli.Error{Code: cli.ExitError, Err: &reason.Error{Reasons: []reason.Reason{*res.Unrecorded}},
			Hint: "make room (or fix the directory) and run the campaign again into a new --out; what this one ran is in " + res.Out}
	}
	if res.Interrupted {
		return &cli.Error{Code: cli.ExitError, Err: fmt.Errorf("interrupted; every run's processes were stopped and its files kept in %s", res.Out),
			Hint: "abbench run --resume " + res.Out + " continues the campaign"}
	}
	runs, cleanup, err := compare.LoadRuns([]string{res.Out}, opts.compare.Verified) // the signature checked as each bundle is read, once
	defer cleanup()
	if err != nil {
		return err
	}
	if cfg.Calibrate != "" {
		c, path, err := campaign.Calibrate(res, cfg.Calibrate, cfg.Compare, runs)
		var ce *campaign.CensoredError
		if errors.As(err, &ce) {
			return &cli.Error{Code: cli.ExitCensored, Err: err}
		} else if err != nil {
			return err
		}
		return render.WriteCalibration(stdout, c, path)
	}
	if opts.compare.Format.Value != "json" {
		return opts.compare.Run(stdout, runs)
	}
	// One JSON document: the plan and the comparison, named as every JSON
	// abbench writes is (docs/schema/run.schema.json).
	var buf bytes.Buffer
	err = opts.compare.Run(&buf, runs)
	if e := cli.WriteJSON(stdout, struct {
		Schema     string          `json:"schema"`
		Plan       any             `json:"plan"`
		Comparison json.RawMessage `json:"comparison"`
	}{runSchema, res.Plan, buf.Bytes()}); e != nil {
		return e
	}
	return err
}

// writeRuns prints the campaign's runs: every run's row where the
// campaign did not end (interrupted, or its plan.json unwritten) or with
// -v, else a line of them, the comparison then summed up (the full report
// is abbench compare DIR's).
func writeRuns(stdout io.Writer, res *campaign.Result, opts *runOptions) error {
	table := opts.compare.Format.Value == "table"
	if !res.Interrupted && res.Unrecorded == nil && table && !opts.verbose {
		opts.compare.Summary = "abbench compare " + res.Out + " (or abbench run -v)"
		return render.WriteBrief(stdout, res)
	}
	if !res.Interrupted && res.Unrecorded == nil && !table {
		return nil
	}
	if err := render.WriteSummary(stdout, res); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout)
	return err
}
