// Package validatecmd is abbench validate: load scenarios and say what each holds constant and what its arms change.
package validatecmd

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/internal/scenarios"
)

type validateOptions struct {
	format cli.Format
}

// New is the command.
func New() *cobra.Command {
	var opts validateOptions
	cmd := &cobra.Command{
		Use:     "validate SCENARIO...",
		Short:   "Load and check scenarios; print what differs between the arms",
		Long:    help.Text("validate"),
		Example: help.Text("validate.examples"),
		Args:    cli.Args(cobra.MinimumNArgs(1), "name at least one scenario file, for example scenarios/quickstart.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args)
		},
	}
	cli.AddFormat(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

// validateSchema names validate --format json's output.
const validateSchema = "abbench-validate-v1"

func runValidate(stdout, stderr io.Writer, opts validateOptions, files []string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	report := scenarios.ValidateFiles(files)
	warnings := make([]string, len(report.Warnings))
	for i, w := range report.Warnings {
		warnings[i] = fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	if err := cli.Warn(stderr, warnings); err != nil {
		return err
	}
	var err error
	if opts.format.Value == "json" {
		err = cli.WriteJSON(stdout, struct {
			Schema string `json:"schema"` // docs/schema/validate.schema.json
			scenarios.Report
		}{validateSchema, report})
	} else {
		// fitted to the width as every table report is (a terminal's,
		// else $COLUMNS, else 80)
		out, done := opts.format.Fitted(stdout)
		err = errors.Join(report.WriteText(out), done())
	}
	if err != nil {
		return err
	}
	if len(report.Failures) > 0 {
		return invalidScenarios(report.Failures)
	}
	return nil
}

// invalidScenarios joins the failures; the first decides the exit status.
func invalidScenarios(errs []error) error {
	for i, err := range errs {
		if errors.Is(err, os.ErrNotExist) {
			errs[i] = cli.Usage(err, "check the path; scenario paths are relative to the current directory")
		}
	}
	code, hint := cli.Classify(errs[0])
	for _, e := range errs[1:] {
		if c, _ := cli.Classify(e); c != code {
			code = cli.ExitUsage
		}
	}
	return &cli.Error{Code: code, Err: errors.Join(errs...), Hint: hint}
}
