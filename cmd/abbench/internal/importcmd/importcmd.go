// Package importcmd is abbench import: results people already have
// turned into arm runs that abbench compare judges.
package importcmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/evidence/imported"
	"github.com/abbench/abbench/internal/textout"
)

const usageHint = "abbench import --format FMT --arm NAME FILE... --arm NAME FILE... --out DIR (see abbench import --help)"

// New is the command. Its flags are read in order by parseArgs: each
// file belongs to the --arm before it, which no flag parser keeps.
func New() *cobra.Command {
	return &cobra.Command{
		Use:                "import --format FMT --arm NAME FILE... --arm NAME FILE... --out DIR",
		Short:              "Turn GuideLLM, AIPerf, hyperfine... results into arm runs",
		Long:               help.Text("import"),
		Example:            help.Text("import.examples"),
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, wantHelp, err := parseArgs(args)
			if wantHelp {
				return cmd.Help()
			}
			if err != nil {
				return cli.Usage(err, usageHint)
			}
			return runImport(cmd.OutOrStdout(), o)
		},
	}
}

// parseArgs reads --format, --result, --out, --paired and --arm NAME
// followed by that arm's files (each flag with a value also as
// --flag=VALUE).
func parseArgs(args []string) (o imported.Options, wantHelp bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" {
			return o, true, nil
		}
		if a == "--paired" {
			o.Paired = true
			continue
		}
		if !strings.HasPrefix(a, "-") {
			if len(o.Arms) == 0 {
				return o, false, fmt.Errorf("%s: a file before any --arm: say whose it is with --arm NAME first", a)
			}
			o.Arms[len(o.Arms)-1].Files = append(o.Arms[len(o.Arms)-1].Files, a)
			continue
		}
		name, value, inline := strings.Cut(a, "=")
		if !inline {
			if i+1 >= len(args) {
				return o, false, fmt.Errorf("%s needs a value", name)
			}
			i++
			value = args[i]
		}
		switch name {
		case "--format":
			o.Format = value
		case "--result":
			o.Result = value
		case "--out":
			o.Out = value
		case "--arm":
			o.Arms = append(o.Arms, imported.Arm{Name: value})
		default:
			return o, false, fmt.Errorf("unknown flag %s", name)
		}
	}
	return o, false, nil
}

// runImport imports, lists each run and whether its evidence is accepted,
// and says how to compare them; exit 3 when one is not (its run is
// written all the same, for compare to say why).
func runImport(stdout io.Writer, o imported.Options) error {
	runs, err := imported.Import(o)
	var fileErr *imported.FileError
	if errors.As(err, &fileErr) {
		return cli.Usage(err, "give files the tool wrote, each a regular file")
	}
	if err != nil {
		return cli.FieldUsage(err, cli.FieldFlags{"Format": "--format", "Arms": "--arm", "Out": "--out", "Paired": "--paired"}, usageHint)
	}
	fitted, done := cli.Fit(stdout)
	out := textout.New(fitted)
	out.Printf("imported %d run(s) of %s records into %s: unsigned, scenario %q\n", len(runs), o.Format, o.Out, imported.Scenario(o.Format))
	failed := 0
	for _, r := range runs {
		state := "accepted"
		if !r.Accepted {
			failed++
			state = "NOT accepted: " + r.Evidence.Reasons[0].String()
		}
		out.Printf("  %s  arm %s  %s  %s\n", r.Dir, r.Arm, r.File, state)
	}
	out.Printf("compare them: abbench compare %s\n", filepath.Join(o.Out, "*"))
	if err := errors.Join(out.Err(), done()); err != nil {
		return err
	}
	if failed > 0 {
		return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("%d of %d imported run(s) not accepted", failed, len(runs)),
			Hint: "compare censors a comparison with them; each reason is listed above"}
	}
	return nil
}
