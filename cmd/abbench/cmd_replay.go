package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/armpipeline"
	"github.com/abbench/abbench/internal/scenarios"
)

type replayOptions struct {
	arm    string
	cell   string
	from   string
	write  bool
	format cli.Format
}

func newReplayCmd() *cobra.Command {
	var opts replayOptions
	cmd := &cobra.Command{
		Use:     "replay SCENARIO --from DIR [--arm NAME]",
		Short:   "Re-extract an earlier run's evidence from its logs",
		Long:    help.Text("replay"),
		Example: help.Text("replay.examples"),
		Args:    cli.Args(cobra.ExactArgs(1), "abbench replay SCENARIO --from DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.OutOrStdout(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.arm, "arm", "", "the arm the run belongs to (default: the one its status.json, or its bundle's evidence, records)")
	cmd.Flags().StringVar(&opts.from, "from", "", "the run's directory (required)")
	cmd.Flags().StringVar(&opts.cell, "cell", "", "the cell of a sweep the run is of (the scenario's matrix:; its evidence.json names it)")
	cmd.Flags().BoolVar(&opts.write, "write", false, "also write evidence.json into the run directory")
	cli.AddFormat(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

func runReplay(stdout io.Writer, opts replayOptions, path string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	if opts.from == "" {
		return cli.Usagef("abbench replay SCENARIO --from DIR", "--from is required")
	}
	if opts.arm == "" { // the run says which arm it ran
		arm, err := armpipeline.ArmOf(opts.from)
		if err != nil {
			return cli.Usage(err, "give the directory of an abbench arm run, an attempt or a bundle; or name its arm with --arm")
		}
		opts.arm = arm
	}
	s, err := scenarios.LoadArm(path, opts.arm)
	if err != nil {
		return err
	}
	if s, err = armCell(s, nil, opts.cell); err != nil {
		return err
	}
	ev, dir, err := armpipeline.Replay(s, opts.arm, opts.from, opts.write)
	if errors.Is(err, armpipeline.ErrBundleReadOnly) {
		return cli.Usagef("a bundle is signed as it is", "--write cannot change a bundle")
	} else if err != nil {
		return cli.Usage(err, "give the directory of an abbench arm run, an attempt or a bundle")
	}
	if opts.format.Value == "json" {
		if err := cli.WriteJSON(stdout, ev); err != nil {
			return err
		}
	} else {
		// fitted to the terminal as arm's report of the same evidence
		// is (its criteria's table was 260 columns)
		fitted, done := opts.format.Fitted(stdout)
		if _, err := fmt.Fprintf(fitted, "replay of arm %s, token %s (%s)\n", ev.Arm, ev.Token, dir); err != nil {
			return err
		}
		if err := errors.Join(ev.WriteText(fitted), done()); err != nil {
			return err
		}
	}
	return evidenceErr(ev, dir)
}
