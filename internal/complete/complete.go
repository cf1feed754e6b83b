// Package complete teaches shell completion the values of abbench's flags:
// fixed choices, each command's --format choices, and the arms of the
// scenario named on the command line.
package complete

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/campaign"
	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/scenarios"
)

// Flags registers completions on every subcommand of root: fixed choices,
// the --format choices of each command (from the flag's usage text, "output
// format: a, b"), and the arms of the scenario named first on the command
// line (--arm, --calibrate, --baseline).
func Flags(root *cobra.Command) {
	fixed := map[string][]string{"order": campaign.Orders, "launcher": campaign.Launchers, "ranks": {"local", "srun"}, "fail-on": compare.FailConditions,
		"method": decide.Methods, "until": {campaign.UntilConclusive},
		"metric": {"output_throughput", "request_throughput", "total_token_throughput", "duration"}}
	for _, c := range root.Commands() {
		if f := c.Flags().Lookup("format"); f != nil {
			fixed["format"] = strings.Split(strings.TrimPrefix(f.Usage, "output format: "), ", ")
		}
		for name, values := range fixed {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
			}
		}
		delete(fixed, "format")
		for _, name := range []string{"arm", "calibrate", "baseline"} {
			if c.Flags().Lookup(name) != nil {
				c.RegisterFlagCompletionFunc(name, arms)
			}
		}
	}
}

// arms lists the arms of the scenario given as the first argument.
func arms(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := scenarios.Load(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	return s.ArmOrder, cobra.ShellCompDirectiveNoFileComp
}
