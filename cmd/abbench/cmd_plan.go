package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/comparison"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/texttable"
)

// planOptions are abbench plan's flags: the design of a campaign whose
// runs CI stages make.
type planOptions struct {
	cfg    campaign.Config
	rule   comparison.Options
	metric string // the sequential looks' one metric
	format cli.Format
}

// Stage is one run of a plan as a CI matrix takes it.
type Stage struct {
	RunIndex int    `json:"run_index"`
	Arm      string `json:"arm"`
	// Block is the run's block (1-based): an abba pair's runs share one.
	Block  int  `json:"block"`
	Warmup bool `json:"warmup,omitempty"`
	// Cell is the run's cell of a sweep (the plan names it; the stage's
	// abbench arm reads it there).
	Cell string `json:"cell,omitempty"`
	// Command is the stage's command, as it runs from the checkout.
	Command []string `json:"command"`
}

// stagesSchema names plan --format json's output (docs/schema).
const stagesSchema = "abbench-stages-v1"

// StagePlan is abbench plan --format json.
type StagePlan struct {
	Schema   string  `json:"schema"` // stagesSchema
	Plan     string  `json:"plan"`
	Scenario string  `json:"scenario"`
	Stages   []Stage `json:"stages"`
}

func newPlanCmd() *cobra.Command {
	var opts planOptions
	cmd := &cobra.Command{
		Use:     "plan SCENARIO --out DIR [--repeat N | --max-pairs N]",
		Short:   "Write a campaign's plan.json for CI stages (one abbench arm each)",
		Long:    help.Text("plan"),
		Example: help.Text("plan.examples"),
		Args:    cli.Args(cobra.ExactArgs(1), "abbench plan SCENARIO --out DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			if f.Changed("repeat") && f.Changed("max-pairs") {
				return cli.Usagef("--repeat N plans N pairs, all compared; --max-pairs N plans a sequential design of at most N", "--repeat and --max-pairs: give one")
			}
			return runPlan(cmd.OutOrStdout(), opts, f.Changed, args[0])
		},
	}
	fs, c := cmd.Flags(), &opts.cfg
	fs.IntVar(&c.Repeat, "repeat", 5, "blocks (one run of every arm each, in abba pairs), all compared")
	fs.IntVar(&c.MinPairs, "min-pairs", 3, "with --max-pairs: the first pair count the sequential design looks at")
	fs.IntVar(&c.MaxPairs, "max-pairs", decide.DefaultMaxPairs, "plan a sequential design of at most this many pairs instead (compare takes the first look that decides)")
	fs.IntVar(&c.Warmup, "warmup", 0, "warm-up blocks first: run and recorded, left out of the statistics")
	fs.StringVar(&c.Order, "order", campaign.OrderABBA, "run order: abba (pairs AB BA AB ..., compared within), interleaved or random (compared unpaired)")
	fs.Uint64Var(&c.Seed, "seed", 0, "seed of the random order and of abba's drawn pairs of blocks (default: from the clock, recorded)")
	fs.StringVar(&c.Out, "out", "", "directory for plan.json (required; new or empty): keep it for the stages")
	fs.StringVar(&opts.rule.Baseline, "baseline", "", "with --max-pairs: the baseline arm its looks compare with (default: the scenario's)")
	fs.StringVar(&opts.metric, "metric", "", "with --max-pairs: the metric its looks compare (default: the scenario's headline metric)")
	fs.Float64Var(&opts.rule.Effect, "smallest-effect", 0, "with --max-pairs: the smallest effect its looks need, in percent (default 1)")
	fs.Float64Var(&opts.rule.Alpha, "alpha", decide.DefaultRule.Alpha, "with --max-pairs: the level all its looks together hold")
	cli.AddFormat(fs, &opts.format, "table", "json")
	return cmd
}

// planFlags name campaign.Config's fields by abbench plan's flags: its
// sequential design is --max-pairs.
var planFlags = cli.FieldFlags{"Repeat": "--repeat", "Until": "--max-pairs N", "MinPairs": "--min-pairs", "MaxPairs": "--max-pairs", "Warmup": "--warmup", "Order": "--order"}

func runPlan(stdout io.Writer, opts planOptions, changed func(string) bool, path string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	cfg := &opts.cfg
	if cfg.Out == "" {
		return cli.Usagef("for example --out plan (the stages read DIR/plan.json)", "--out is required")
	}
	s, err := scenarios.Load(path)
	if err != nil {
		return err
	}
	if opts.metric != "" {
		opts.rule.Metric = []string{opts.metric}
	}
	cfg.Scenario, cfg.Launcher, cfg.Stages, cfg.Compare = s, "local", true, opts.rule.Given()
	if !changed("seed") {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if changed("max-pairs") { // a sequential design, of no fixed count
		cfg.Until, cfg.Repeat = campaign.UntilConclusive, 0
	}
	if err := pinImages(context.Background(), s, nil); err != nil {
		return err
	}
	res, err := campaign.Plan(cfg)
	if err != nil {
		return planError(err, planFlags)
	}
	res.Plan.Containers = s.Pinned() // every stage starts its containers from these
	if err := claimOut(res, "choose a new --out directory: a plan is made once"); err != nil {
		return err
	}
	planFile := filepath.Join(cfg.Out, rundir.PlanFile)
	sp := StagePlan{Schema: stagesSchema, Plan: planFile, Scenario: path, Stages: []Stage{}}
	perBlock := len(s.ArmOrder) * max(len(res.Plan.Cells), 1) // a sweep's block holds every cell's runs
	for _, r := range res.Plan.Runs {
		sp.Stages = append(sp.Stages, Stage{RunIndex: r.Index, Arm: r.Arm, Block: (r.Index-1)/perBlock + 1, Warmup: r.Warmup, Cell: r.Cell,
			Command: []string{"abbench", "arm", path, "--plan", planFile, "--run-index", strconv.Itoa(r.Index), "--out", fmt.Sprintf("stage-%d", r.Index)}})
	}
	if opts.format.Value == "json" {
		return cli.WriteJSON(stdout, sp)
	}
	return writeStages(stdout, sp, res.Plan)
}

// planError is campaign.Plan's error: a configuration it refuses is a
// usage error, said with the command's flags.
func planError(err error, flags cli.FieldFlags) error {
	var invalid *campaign.InvalidError
	if errors.As(err, &invalid) {
		return cli.FieldUsage(invalid.Err, flags, "")
	}
	return err
}

// claimOut claims the planned campaign's --out directory; hint says what
// to do when it is not empty.
func claimOut(res *campaign.Result, hint string) error {
	err := res.Claim()
	if errors.Is(err, campaign.ErrNotEmpty) {
		return cli.Usage(fmt.Errorf("--out %w", err), hint)
	}
	return err
}

// writeStages prints the stage list and what to do with it.
func writeStages(w io.Writer, sp StagePlan, p *rundir.Plan) error {
	design := fmt.Sprintf("%d blocks in %s order, all compared", p.Repeat, p.Order)
	if q := p.Sequential; q != nil {
		design = fmt.Sprintf("a sequential design of %d-%d pairs: compare takes the first look that decides", q.MinPairs, q.MaxPairs)
	}
	if _, err := fmt.Fprintf(w, "%s: %d stages of %s (%s)\n\n", sp.Plan, len(sp.Stages), p.Scenario, design); err != nil {
		return err
	}
	var rows [][]string
	for _, st := range sp.Stages {
		arm := st.Arm
		if st.Warmup {
			arm += " (warm-up)"
		}
		if st.Cell != "" {
			arm += " " + st.Cell
		}
		rows = append(rows, []string{strconv.Itoa(st.RunIndex), arm, strconv.Itoa(st.Block)})
	}
	if err := texttable.Write(w, []string{"run index", "arm", "block"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nrun each stage in an allocation of its own, keeping its --out directory:\n  abbench arm %s --plan %s --run-index I --out stage-I\nthen compare them all (each run's signed provenance holds the plan):\n  abbench compare stage-* --fail-on regression,undecided\n",
		sp.Scenario, sp.Plan)
	return err
}
