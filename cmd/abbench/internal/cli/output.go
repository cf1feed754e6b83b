package cli

import (
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
