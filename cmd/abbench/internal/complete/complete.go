// Package complete teaches shell completion the values of abbench's flags:
// fixed choices, each command's --format choices, and the arms of the
// scenario named on the command line.
package complete

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	armrun "github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/scenarios"
)

// Flags registers completions on every subcommand of root: fixed choices,
// the --format choices of each command (from the flag's usage text, "output
// format: a, b"), and the arms of the scenario named first on the command
// line (--arm, --calibrate, --baseline).
func Flags(root *cobra.Command) {
	fixed := map[string][]string{"order": campaign.Orders, "launcher": campaign.Launchers, "ranks": armrun.RankDrivers(), "fail-on": compare.FailConditions,
		"method": decide.Methods, "until": {campaign.UntilConclusive},
		"metric": {"output_throughput", "request_throughput", "total_token_throughput", "duration", "goodput",
			"p99_ttft_ms", "median_ttft_ms", "mean_ttft_ms", "p99_tpot_ms", "mean_tpot_ms", "p99_itl_ms", "median_itl_ms", "p99_e2el_ms", "mean_e2el_ms"}}
	for _, c := range root.Commands() {
		if f := c.Flags().Lookup("format"); f != nil {
			fixed["format"] = strings.Split(strings.TrimPrefix(f.Usage, "output format: "), ", ")
		}
		for name, values := range fixed {
			if c.Flags().Lookup(name) != nil {
				register(c, name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
			}
		}
		delete(fixed, "format")
		for _, name := range []string{"arm", "calibrate", "baseline"} {
			if c.Flags().Lookup(name) != nil {
				register(c, name, arms)
			}
		}
		if c.Flags().Lookup("cell") != nil {
			register(c, "cell", cells)
		}
	}
}

// register completes flag name of c (looked up first) with f: it fails only
// when the flag has a completion already, a bug of this file.
func register(c *cobra.Command, name string, f cobra.CompletionFunc) {
	if err := c.RegisterFlagCompletionFunc(name, f); err != nil {
		panic(fmt.Sprintf("completion of %s --%s: %v", c.Name(), name, err))
	}
}

// arms lists the arms of the scenario given as the first argument.
func arms(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	return ofScenario(args, func(s *scenarios.Scenario) []string { return s.ArmOrder })
}

// cells lists the cells of the sweep given as the first argument.
func cells(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	return ofScenario(args, (*scenarios.Scenario).CellNames)
}

// ofScenario completes with what values says of the scenario given as
// the first argument.
func ofScenario(args []string, values func(*scenarios.Scenario) []string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	s, err := scenarios.Load(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	return values(s), cobra.ShellCompDirectiveNoFileComp
}
