package main

import (
	"context"
	"io"
	"strings"

	"github.com/abbench/abbench/cmd/abbench/internal/digestcmd"
	"github.com/abbench/abbench/cmd/abbench/internal/loadcmd"
	"github.com/abbench/abbench/cmd/abbench/internal/validatecmd"
	"github.com/abbench/abbench/cmd/abbench/internal/verifycmd"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/complete"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/cmd/abbench/internal/historycmd"
	"github.com/abbench/abbench/cmd/abbench/internal/memlimit"
	"github.com/abbench/abbench/cmd/abbench/internal/version"
	"github.com/abbench/abbench/internal/termwidth"
)

// run is the whole CLI: it takes its arguments and writers, so tests drive it
// in-process, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	memlimit.ForCommand(args)
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return cli.ExitOK
	}
	code, hint := cli.Classify(err)
	cli.Report(stderr, err, hint)
	return code
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:               "abbench",
		Short:             "Reproducible A/B benchmarks that end in signed, checkable evidence",
		Long:              help.Text("abbench") + "\n\n" + help.ExitStatus,
		Version:           version.String(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return cli.Usage(err, "run 'abbench COMMAND --help' for the flags")
	})
	root.AddCommand(validatecmd.New(), digestcmd.New(), newArmCmd(), newPlanCmd(), newRunCmd(), newCompareCmd(), verifycmd.New(), newReplayCmd(), loadcmd.New(), historycmd.New(), newRankExecCmd(), newGuardCmd())
	var withExitStatus func(*cobra.Command)
	withExitStatus = func(parent *cobra.Command) {
		for _, c := range parent.Commands() {
			if !strings.Contains(c.Long, "EXIT STATUS") && c.Name() != "completion" && c.Name() != "help" {
				c.Long = strings.TrimSpace(c.Long) + "\n\n" + help.ExitSection(c.CommandPath())
			}
			withExitStatus(c)
		}
	}
	withExitStatus(root)
	useHelpTemplate(root, termwidth.Columns(stdout))
	complete.Flags(root)
	return root
}
