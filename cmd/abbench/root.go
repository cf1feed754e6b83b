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
	root.InitDefaultCompletionCmd() // now, not at Execute, so that its unknown shells are refused below
	for _, c := range root.Commands() {
		if c.Name() == "completion" { // cobra's: given the examples every other command's help has
			c.Example = "  abbench completion bash > /etc/bash_completion.d/abbench\n  source <(abbench completion zsh)\n  abbench completion fish > ~/.config/fish/completions/abbench.fish"
		}
	}
	refuseUnknownSubcommands(root)
	useHelpTemplate(root, termwidth.Columns(stdout))
	complete.Flags(root)
	return root
}

// refuseUnknownSubcommands makes an unknown subcommand of c, and of every
// command below it that has subcommands and no work of its own, a usage
// error by its type (exit 2): cobra's own says so only in words at the
// root, and below it only prints the help and exits 0 (`abbench history
// list`, `abbench completion fsh`), which a CI step with a typo took for
// success. Given no subcommand, such a command shows its help, as it did.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.RunE != nil || c.Run != nil {
		return
	}
	c.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		c.SuggestionsMinimumDistance = max(c.SuggestionsMinimumDistance, 2) // cobra's own default
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		what := "the commands and their flags"
		if c.HasParent() {
			what = "its subcommands"
		}
		return cli.Usage(errors.New(msg), fmt.Sprintf("run '%s --help' for %s", c.CommandPath(), what))
	}
	c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
}
