package main

import (
	"context"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// run is the whole CLI: it takes its arguments and writers, so tests drive it
// in-process, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "abbench",
		Short: "Reproducible A/B benchmarks that end in signed, checkable evidence",
		Long: `abbench stands up matched arms of an A/B benchmark (the same everything but the
environment keys a scenario declares), proves on every rank that the arm's
environment arrived, scopes logs by byte offset, hashes the workload's prompt
content with a pinned algorithm, and censors any comparison whose evidence is
missing, partial, stale or unequal.

Start with 'abbench validate SCENARIO' to see what differs between the arms.

` + exitStatusHelp,
		Version:           version(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError(err, "run 'abbench COMMAND --help' for the flags")
	})
	root.AddCommand(newValidateCmd(), newDigestCmd(), newArmCmd(), newRunCmd(), newCompareCmd(), newVerifyCmd(), newReplayCmd(), newRankExecCmd())
	for _, c := range root.Commands() {
		if !strings.Contains(c.Long, "EXIT STATUS") && c.Name() != "completion" && c.Name() != "help" {
			c.Long = strings.TrimSpace(c.Long) + "\n\n" + exitStatusHelp
		}
	}
	return root
}

// version is the module version from build information, with the VCS
// revision when the binary was built from a checkout.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (" + rev + dirty + ")"
	}
	return v
}

// exactArgs is cobra.ExactArgs whose failure is a usage error.
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
	for _, c := range f.choices {
		if f.value == c {
			return nil
		}
	}
	return usagef("", "--format %q: choose one of %s", f.value, strings.Join(f.choices, ", "))
}
