package main

import (
	"context"
	"embed"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/internal/complete"
	"github.com/abbench/abbench/internal/memlimit"
	"github.com/abbench/abbench/internal/version"
)

// run is the whole CLI: it takes its arguments and writers, so tests drive it
// in-process, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	memlimit.ForCommand(args)
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code, hint := classify(err)
	report(stderr, err, hint)
	return code
}

// helpTexts are the commands' long help, one file each, so they read as the
// documentation they are.
//
//go:embed help/*.txt
var helpTexts embed.FS

// help is the long help of a command.
func help(name string) string {
	data, err := helpTexts.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("no help text for " + name) // a test runs every command's help
	}
	return strings.TrimRight(string(data), "\n")
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:               "abbench",
		Short:             "Reproducible A/B benchmarks that end in signed, checkable evidence",
		Long:              help("abbench") + "\n\n" + exitStatusHelp,
		Version:           version.String(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError(err, "run 'abbench COMMAND --help' for the flags")
	})
	root.AddCommand(newValidateCmd(), newDigestCmd(), newArmCmd(), newPlanCmd(), newRunCmd(), newCompareCmd(), newVerifyCmd(), newReplayCmd(), newLoadCmd(), newHistoryCmd(), newRankExecCmd(), newGuardCmd())
	var withExitStatus func(*cobra.Command)
	withExitStatus = func(parent *cobra.Command) {
		for _, c := range parent.Commands() {
			if !strings.Contains(c.Long, "EXIT STATUS") && c.Name() != "completion" && c.Name() != "help" {
				c.Long = strings.TrimSpace(c.Long) + "\n\n" + exitHelp(c.CommandPath())
			}
			withExitStatus(c)
		}
	}
	withExitStatus(root)
	complete.Flags(root)
	return root
}

// writeJSON prints v as indented JSON: every command's --format json.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// argsUsage is check whose failure is a usage error, with hint.
func argsUsage(check cobra.PositionalArgs, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError(err, hint)
		}
		return nil
	}
}

// formatFlag adds --format with the given choices, the first the default.
type formatFlag struct {
	value   string
	choices []string
}

func addFormatFlag(fs *pflag.FlagSet, f *formatFlag, choices ...string) {
	f.choices = choices
	fs.StringVar(&f.value, "format", choices[0], "output format: "+strings.Join(choices, ", "))
}

func (f *formatFlag) check() error {
	if slices.Contains(f.choices, f.value) {
		return nil
	}
	return usagef("", "--format %q: choose one of %s", f.value, strings.Join(f.choices, ", "))
}
