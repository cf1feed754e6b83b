package main

import (
	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/comparison"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/compare"
)

func newCompareCmd() *cobra.Command {
	var opts comparison.Options
	cmd := &cobra.Command{
		Use:     "compare RUN...",
		Short:   "Censor gate and statistics over the runs of two or more arms",
		Long:    help.Text("compare"),
		Example: help.Text("compare.examples"),
		Args:    cli.Args(cobra.MinimumNArgs(1), "give the runs to compare, for example abbench compare out/async out/blocking"),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, cleanup, err := opts.LoadRuns(args)
			defer cleanup()
			if err != nil {
				return err
			}
			out, done := opts.Format.Fitted(cmd.OutOrStdout())
			err = opts.Run(out, runs)
			if derr := done(); err == nil {
				err = derr
			}
			return err
		},
	}
	comparison.AddFlags(cmd, &opts)
	cli.AddFormat(cmd.Flags(), &opts.Format, compare.Formats...)
	// compare prints the full report whatever it is told. -v is taken as
	// abbench run takes it, so that the run summary's "full report:
	// abbench compare DIR (or abbench run -v)" does not send a reader who
	// tries compare -v to an unknown flag.
	var verbose bool
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "the full report, which compare prints anyway (as abbench run -v does)")
	return cmd
}
