package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abbench/abbench/internal/termwidth"
)

// helpTemplate orders a command's --help as a reader looks for it: what
// it does (a few lines), how to call it, its flags (wrapped to the
// output's width), then its examples, and last its exit statuses (the
// section Long ends with). The prose is in docs/.
const helpTemplate = `{{with (or .Long .Short)}}{{helpBody . | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagUsages .LocalFlags | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{flagUsages .InheritedFlags | trimTrailingWhitespaces}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
{{end}}{{with helpExit .Long}}
{{.}}
{{end}}`

// exitHeading begins the exit-status section each command's Long ends
// with (help.ExitSection).
const exitHeading = "EXIT STATUS"

// useHelpTemplate gives root and every command under it helpTemplate,
// its flags wrapped to cols columns.
func useHelpTemplate(root *cobra.Command, cols int) {
	cobra.AddTemplateFunc("helpBody", func(long string) string {
		if i := strings.Index(long, exitHeading); i >= 0 {
			return strings.TrimSpace(long[:i])
		}
		return long
	})
	cobra.AddTemplateFunc("helpExit", func(long string) string {
		if i := strings.Index(long, exitHeading); i >= 0 {
			return strings.TrimSpace(long[i:])
		}
		return ""
	})
	cobra.AddTemplateFunc("flagUsages", func(fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(cols) })
	root.SetHelpTemplate(helpTemplate)
	// Every other line longer than the output is wide (a usage line, an
	// exit status, a paragraph of the long help) is wrapped too, its
	// continuation indented past its own indent: --help fits the
	// terminal, 80 columns where it is no terminal.
	render := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		out := c.OutOrStdout()
		tw := termwidth.NewWriter(out, cols)
		c.SetOut(tw)
		defer c.SetOut(out)
		render(c, args)
		_ = tw.Flush() // a help that cannot be written has no one to tell
	})
}
