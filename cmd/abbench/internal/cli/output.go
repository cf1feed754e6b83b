package cli

import (
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/internal/termwidth"
)

// WriteJSON prints v as indented JSON: every command's --format json.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Args is check whose failure is a usage error, with hint.
func Args(check cobra.PositionalArgs, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return Usage(err, hint)
		}
		return nil
	}
}

// Format is a command's --format: Value, one of Choices.
type Format struct {
	Value   string
	Choices []string
}

// AddFormat adds --format with the given choices, the first the default.
func AddFormat(fs *pflag.FlagSet, f *Format, choices ...string) {
	f.Choices = choices
	fs.StringVar(&f.Value, "format", choices[0], "output format: "+strings.Join(choices, ", "))
}

// Check refuses a Value that is none of the choices.
func (f *Format) Check() error {
	if slices.Contains(f.Choices, f.Value) {
		return nil
	}
	return Usagef("", "--format %q: choose one of %s", f.Value, strings.Join(f.Choices, ", "))
}

// Fitted is w for a report in format: a table report (text for a person)
// has every line fitted to w's width (a terminal's, else $COLUMNS, else
// 80: termwidth.Columns), the other formats are for programs and pass
// whole. Call done once the report is written: it writes what is held.
func (f *Format) Fitted(w io.Writer) (fitted io.Writer, done func() error) {
	if f.Value != "table" {
		return w, func() error { return nil }
	}
	return Fit(w)
}

// Fit is w with every line fitted to its width (a terminal's, else
// $COLUMNS, else 80), for a command whose output is text for a person
// in every form; call done once the text is written.
func Fit(w io.Writer) (fitted io.Writer, done func() error) {
	tw := termwidth.NewWriter(w, termwidth.Columns(w))
	return tw, tw.Flush
}

// Warn writes each warning on stderr as a line of its own after
// "abbench: ", fitted to stderr's width (a terminal's, else $COLUMNS,
// else 80) as every report is: a scenario's warning names a key, why
// it matters and its fix, several hundred columns as one line.
func Warn(stderr io.Writer, warnings []string) error {
	w, done := Fit(stderr)
	for _, line := range warnings {
		if _, err := io.WriteString(w, "abbench: "+line+"\n"); err != nil {
			return err
		}
	}
	return done()
}
