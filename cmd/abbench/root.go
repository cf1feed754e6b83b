package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/cmd/abbench/internal/digestcmd"
	"github.com/abbench/abbench/cmd/abbench/internal/importcmd"
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cli.Usage(err, fmt.Sprintf("run '%s --help' for the flags", c.CommandPath()))
	})
	// An unknown command is a usage error by its type: cobra's own says
	// so only in words. Runnable, the root shows its help when given
	// nothing, as it did.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		c.SuggestionsMinimumDistance = max(c.SuggestionsMinimumDistance, 2) // cobra's own default
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return cli.Usage(errors.New(msg), "run 'abbench --help' for the commands and their flags")
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	arm, runCmd, rankExec, guard, hookGuard := newArmCmd(), newRunCmd(), newRankExecCmd(), newGuardCmd(), newHookGuardCmd()
	needLinux(arm, runCmd, rankExec, guard, hookGuard)
	root.AddCommand(validatecmd.New(), digestcmd.New(), arm, newPlanCmd(), runCmd, newCompareCmd(), verifycmd.New(), newReplayCmd(), loadcmd.New(), historycmd.New(), importcmd.New(), rankExec, guard, hookGuard)
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
